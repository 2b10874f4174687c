#include <gmime/gmime.h>

// GObject type checks are macros Swift cannot call: these return the object as the asked type,
// or NULL when it is not one.
static inline GMimeMultipart *cgmime_as_multipart(GMimeObject *o) {
    return o && GMIME_IS_MULTIPART(o) ? (GMimeMultipart *)o : NULL;
}
static inline GMimeMessagePart *cgmime_as_message_part(GMimeObject *o) {
    return o && GMIME_IS_MESSAGE_PART(o) ? (GMimeMessagePart *)o : NULL;
}
static inline GMimePart *cgmime_as_part(GMimeObject *o) {
    return o && GMIME_IS_PART(o) ? (GMimePart *)o : NULL;
}
static inline InternetAddressMailbox *cgmime_as_mailbox(InternetAddress *a) {
    return a && INTERNET_ADDRESS_IS_MAILBOX(a) ? (InternetAddressMailbox *)a : NULL;
}
static inline InternetAddressGroup *cgmime_as_group(InternetAddress *a) {
    return a && INTERNET_ADDRESS_IS_GROUP(a) ? (InternetAddressGroup *)a : NULL;
}
static inline GMimeObject *cgmime_message_object(GMimeMessage *m) { return (GMimeObject *)m; }
static inline GMimeObject *cgmime_part_object(GMimePart *p) { return (GMimeObject *)p; }
static inline GMimeStreamFilter *cgmime_as_filter_stream(GMimeStream *s) { return (GMimeStreamFilter *)s; }
static inline GMimeStreamCat *cgmime_as_cat_stream(GMimeStream *s) { return (GMimeStreamCat *)s; }

static void cgmime_log_nothing(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// GMime (and the GLib calls it makes) report through g_log, which prints to stderr by default.
static inline void cgmime_silence_logging(void) {
    GLogLevelFlags all = (GLogLevelFlags)(G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION);
    g_log_set_handler("gmime", all, cgmime_log_nothing, NULL);
    g_log_set_handler("GLib", all, cgmime_log_nothing, NULL);
    g_log_set_handler("GLib-GObject", all, cgmime_log_nothing, NULL);
}
