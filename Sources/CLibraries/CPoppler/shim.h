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
