#include "CSDBus.h"
#include <stdlib.h>
#include <string.h>

// sd-bus keeps a pointer to the vtable for as long as the object is registered, so each lives
// in static storage; the handler is only known at run time, hence the copy.
static sd_bus_vtable provider_vtable[7];
static sd_bus_vtable krunner_vtable[7];

int csdbus_add_search_provider(sd_bus *bus, sd_bus_slot **slot, const char *path,
                               sd_bus_message_handler_t handler, void *userdata) {
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("GetInitialResultSet", "as", "as", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("GetSubsearchResultSet", "asas", "as", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("GetResultMetas", "as", "aa{sv}", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ActivateResult", "sasu", "", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("LaunchSearch", "asu", "", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
    };
    memcpy(provider_vtable, v, sizeof v);
    return sd_bus_add_object_vtable(bus, slot, path, "org.gnome.Shell.SearchProvider2", provider_vtable, userdata);
}

int csdbus_add_krunner(sd_bus *bus, sd_bus_slot **slot, const char *path,
                       sd_bus_message_handler_t handler, void *userdata) {
    const sd_bus_vtable v[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Match", "s", "a(sssida{sv})", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Actions", "", "a(sss)", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Run", "ss", "", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Config", "", "a{sv}", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Teardown", "", "", handler, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
    };
    memcpy(krunner_vtable, v, sizeof v);
    return sd_bus_add_object_vtable(bus, slot, path, "org.kde.krunner1", krunner_vtable, userdata);
}

int csdbus_append_string_entry(sd_bus_message *m, const char *key, const char *value) {
    return sd_bus_message_append(m, "{sv}", key, "s", value);
}

int csdbus_append_int_entry(sd_bus_message *m, const char *key, int value) {
    return sd_bus_message_append(m, "{sv}", key, "i", value);
}

int csdbus_append_strv_entry(sd_bus_message *m, const char *key, char **values) {
    int r;
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) return r;
    if ((r = sd_bus_message_append_basic(m, 's', key)) < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'v', "as")) < 0) return r;
    if ((r = sd_bus_message_append_strv(m, values)) < 0) return r;
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    return sd_bus_message_close_container(m);
}

int csdbus_append_icon_entry(sd_bus_message *m, const char *kind, char **names) {
    int r;
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) return r;
    if ((r = sd_bus_message_append_basic(m, 's', "icon")) < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'v', "(sv)")) < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'r', "sv")) < 0) return r;
    if ((r = sd_bus_message_append_basic(m, 's', kind)) < 0) return r;
    if (strcmp(kind, "themed") == 0) {
        if ((r = sd_bus_message_open_container(m, 'v', "as")) < 0) return r;
        if ((r = sd_bus_message_append_strv(m, names)) < 0) return r;
    } else {
        if ((r = sd_bus_message_open_container(m, 'v', "s")) < 0) return r;
        if ((r = sd_bus_message_append_basic(m, 's', names[0])) < 0) return r;
    }
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    return sd_bus_message_close_container(m);
}

int csdbus_append_krunner_match(sd_bus_message *m, const char *id, const char *text, const char *icon,
                                int type, double relevance, const char *subtext, const char *url) {
    int r;
    if ((r = sd_bus_message_open_container(m, 'r', "sssida{sv}")) < 0) return r;
    if ((r = sd_bus_message_append(m, "sssid", id, text, icon, type, relevance)) < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'a', "{sv}")) < 0) return r;
    if (subtext && (r = csdbus_append_string_entry(m, "subtext", subtext)) < 0) return r;
    if (url) {
        char *urls[] = { (char *)url, NULL };
        if ((r = csdbus_append_strv_entry(m, "urls", urls)) < 0) return r;
    }
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    return sd_bus_message_close_container(m);
}

int csdbus_append_krunner_action(sd_bus_message *m, const char *id, const char *text, const char *icon) {
    return sd_bus_message_append(m, "(sss)", id, text, icon);
}

int csdbus_reply_empty(sd_bus_message *call) {
    return sd_bus_reply_method_return(call, NULL);
}

void csdbus_strv_free(char **strv) {
    if (!strv) return;
    for (char **p = strv; *p; p++) free(*p);
    free(strv);
}
