#include <poppler.h>
// poppler-glib reports every PDF syntax problem through g_log (domain "Poppler"). Broken files are
// normal input for an indexer: drop those messages instead of printing them to stderr.
static void cpoppler_noop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}
static inline void cpoppler_silence_log(void) {
    g_log_set_handler("Poppler", (GLogLevelFlags)(G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION),
                      cpoppler_noop_log, NULL);
}
static inline gboolean cpoppler_is_encrypted_error(const GError *error) {
    return error != NULL && error->domain == POPPLER_ERROR && error->code == POPPLER_ERROR_ENCRYPTED;
}
// GError's fields: the glib headers are shared by several C modules, so Swift may attribute the
// struct to another one; read them here.
static inline const char *cpoppler_error_message(const GError *error) { return error ? error->message : NULL; }
// Annotations (issue 28): the list poppler_page_get_annot_mapping returns holds
// PopplerAnnotMapping values; GList's fields and the GObject type check are macros or structs
// Swift may attribute to another glib-using module, so they are read here.
static inline PopplerAnnot *cpoppler_mapping_annot(GList *node) {
    return node && node->data ? ((PopplerAnnotMapping *)node->data)->annot : NULL;
}
static inline GList *cpoppler_list_next(GList *node) { return node ? node->next : NULL; }
static inline PopplerAnnotMarkup *cpoppler_as_markup(PopplerAnnot *annot) {
    return annot && POPPLER_IS_ANNOT_MARKUP(annot) ? POPPLER_ANNOT_MARKUP(annot) : NULL;
}
