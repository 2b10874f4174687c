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
