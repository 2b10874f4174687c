#include <gdk-pixbuf/gdk-pixbuf.h>
#include <string.h>

// gdk-pixbuf reports broken images through g_log (domain "GdkPixbuf"); broken files are normal
// input for a thumbnailer: their messages go nowhere (the error comes back as a GError).
static void cpixbuf_noop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}
static inline void cpixbuf_silence_log(void) {
    g_log_set_handler("GdkPixbuf", (GLogLevelFlags)(G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION),
                      cpixbuf_noop_log, NULL);
}

// "size-prepared": shrink the image to fit a square of `max` pixels while it loads (the JPEG
// loader then decodes at 1/2, 1/4 or 1/8 of the size), never enlarge it: the spec keeps a
// smaller image at its own size.
static void cpixbuf_fit(GdkPixbufLoader *loader, gint width, gint height, gpointer data) {
    gint max = GPOINTER_TO_INT(data);
    if (width <= max && height <= max) return;
    double scale = width >= height ? (double)max / width : (double)max / height;
    gint w = (gint)(width * scale + 0.5), h = (gint)(height * scale + 0.5);
    gdk_pixbuf_loader_set_size(loader, w < 1 ? 1 : w, h < 1 ? 1 : h);
}

// A loader that shrinks what it loads to fit `max` pixels (g_signal_connect is a macro).
static inline GdkPixbufLoader *cpixbuf_loader_fitting(gint max) {
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
    g_signal_connect(loader, "size-prepared", G_CALLBACK(cpixbuf_fit), GINT_TO_POINTER(max));
    return loader;
}

// Whether a loader of this gdk-pixbuf claims the MIME type.
static inline gboolean cpixbuf_supports_mime(const char *mime) {
    gboolean found = FALSE;
    GSList *formats = gdk_pixbuf_get_formats();
    for (GSList *f = formats; f && !found; f = f->next) {
        if (gdk_pixbuf_format_is_disabled(f->data)) continue;
        gchar **types = gdk_pixbuf_format_get_mime_types(f->data);
        for (gchar **t = types; t && *t; t++) if (strcmp(*t, mime) == 0) { found = TRUE; break; }
        g_strfreev(types);
    }
    g_slist_free(formats);
    return found;
}

// GError's message (see CPoppler's shim: the struct is shared by several C modules).
static inline const char *cpixbuf_error_message(const GError *error) { return error ? error->message : NULL; }
