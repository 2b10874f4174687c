#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU: <libxml/encoding.h> pulls the system ICU headers, which clash
// with the toolchain's _FoundationICU module as soon as Foundation is imported in the same module.
// We never touch the ICU-dependent fields of xmlCharEncodingHandler, so hide them.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
// xmlFree is a global function-pointer variable, which Swift 6 rejects as shared mutable state.
static inline void cxml_free(void *p) { xmlFree(p); }
static inline const char *cxml_version(void) { return LIBXML_DOTTED_VERSION; }
// libxml2 reports some errors (xml:id validity, I/O) through its generic error handler even with
// XML_PARSE_NOERROR, straight to stderr. Broken input is normal for an indexer: silence both
// handlers, for the calling thread and as the default of threads created later.
static void cxml_noop_generic(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }
static void cxml_noop_structured(void *ctx, xmlErrorPtr err) { (void)ctx; (void)err; }
static inline void cxml_silence_errors(void) {
    xmlSetGenericErrorFunc(NULL, cxml_noop_generic);
    xmlSetStructuredErrorFunc(NULL, cxml_noop_structured);
    xmlThrDefSetGenericErrorFunc(NULL, cxml_noop_generic);
    xmlThrDefSetStructuredErrorFunc(NULL, cxml_noop_structured);
}
