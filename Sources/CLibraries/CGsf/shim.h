#include <gsf/gsf-utils.h>
#include <gsf/gsf-input-memory.h>
#include <gsf/gsf-infile.h>
#include <gsf/gsf-infile-msole.h>
#include <gsf/gsf-msole-utils.h>
#include <gsf/gsf-doc-meta-data.h>
#include <gsf/gsf-docprop-vector.h>
#include <gsf/gsf-timestamp.h>
#include <gsf/gsf-meta-names.h>
// libgsf warns through g_log about damaged containers (domain "libgsf", and the default NULL
// domain for its OLE2 reader); those are normal input for an indexer.
static void cgsf_noop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}
static void cgsf_noop_print(const gchar *text) { (void)text; }
static inline void cgsf_silence_log(void) {
    // libgsf also dumps the bytes of malformed property sets with g_print (gsf_mem_dump), to
    // stdout. Extractors never print, so the process-wide print handlers go nowhere.
    g_set_print_handler(cgsf_noop_print);
    g_set_printerr_handler(cgsf_noop_print);
    GLogLevelFlags all = (GLogLevelFlags)(G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION);
    g_log_set_handler(NULL, all, cgsf_noop_log, NULL);
    g_log_set_handler("libgsf", all, cgsf_noop_log, NULL);
    g_log_set_handler("libgsf:msole", all, cgsf_noop_log, NULL);
    g_log_set_handler("libgsf:MSOLE", all, cgsf_noop_log, NULL);
}
// Typed reads of one property (G_VALUE_HOLDS_* and the boxed types are macros Swift cannot call).
static inline const GValue *cgsf_value(GsfDocMetaData *meta, const char *name) {
    GsfDocProp *prop = gsf_doc_meta_data_lookup(meta, name);
    return prop ? gsf_doc_prop_get_val(prop) : NULL;
}
/// A string property (borrowed; valid while `meta` lives), or NULL.
static inline const char *cgsf_string(GsfDocMetaData *meta, const char *name) {
    const GValue *v = cgsf_value(meta, name);
    return (v != NULL && G_VALUE_HOLDS_STRING(v)) ? g_value_get_string(v) : NULL;
}
/// An integer property; FALSE when absent or of another type.
static inline gboolean cgsf_integer(GsfDocMetaData *meta, const char *name, gint64 *out) {
    const GValue *v = cgsf_value(meta, name);
    if (v == NULL) return FALSE;
    if (G_VALUE_HOLDS_INT(v)) { *out = g_value_get_int(v); return TRUE; }
    if (G_VALUE_HOLDS_UINT(v)) { *out = g_value_get_uint(v); return TRUE; }
    if (G_VALUE_HOLDS_INT64(v)) { *out = g_value_get_int64(v); return TRUE; }
    if (G_VALUE_HOLDS_UINT64(v)) { *out = (gint64)g_value_get_uint64(v); return TRUE; }
    return FALSE;
}
/// A date property as seconds since 1970 (UTC); FALSE when absent or of another type.
static inline gboolean cgsf_time(GsfDocMetaData *meta, const char *name, gint64 *out) {
    const GValue *v = cgsf_value(meta, name);
    if (v == NULL || !G_VALUE_HOLDS(v, GSF_TIMESTAMP_TYPE)) return FALSE;
    GsfTimestamp const *ts = g_value_get_boxed(v);
    if (ts == NULL) return FALSE;
    if (ts->timet != 0) {   // libgsf 1.14.50 keeps the instant here (UTC) and leaves `date` unset
        *out = ts->timet;
    } else {
        if (!g_date_valid(&ts->date)) return FALSE;
        GDateTime *dt = g_date_time_new_utc(g_date_get_year(&ts->date), g_date_get_month(&ts->date), g_date_get_day(&ts->date), 0, 0, 0);
        if (dt == NULL) return FALSE;
        *out = g_date_time_to_unix(dt) + ts->seconds;
        g_date_time_unref(dt);
    }
    return TRUE;
}
// GError's fields (the glib headers are shared by several C modules; read them here).
static inline const char *cgsf_error_message(const GError *error) { return error ? error->message : NULL; }
