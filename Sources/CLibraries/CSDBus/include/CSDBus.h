#pragma once
// sd-bus (libsystemd) for the desktop's search providers. The vtable macros and sd-bus's
// variadic functions do not import into Swift, so the few that are needed are wrapped here;
// everything else is called from Swift directly.
#include <systemd/sd-bus.h>

/// Registers org.gnome.Shell.SearchProvider2 at `path`; every method calls `handler`, which
/// tells them apart by sd_bus_message_get_member().
int csdbus_add_search_provider(sd_bus *bus, sd_bus_slot **slot, const char *path,
                               sd_bus_message_handler_t handler, void *userdata);

/// Registers org.kde.krunner1 at `path`, the same way.
int csdbus_add_krunner(sd_bus *bus, sd_bus_slot **slot, const char *path,
                       sd_bus_message_handler_t handler, void *userdata);

/// Appends a `{sv}` entry whose value is a string.
int csdbus_append_string_entry(sd_bus_message *m, const char *key, const char *value);

/// Appends a `{sv}` entry whose value is an int32.
int csdbus_append_int_entry(sd_bus_message *m, const char *key, int value);

/// Appends a `{sv}` entry whose value is an array of strings.
int csdbus_append_strv_entry(sd_bus_message *m, const char *key, char **values);

/// Appends `{"icon": <(kind, <value>)>}`, a serialized GIcon: kind "themed" with `names`
/// (an array of icon names) or kind "file" with `names[0]` (a file URI).
int csdbus_append_icon_entry(sd_bus_message *m, const char *kind, char **names);

/// Appends one KRunner match: `(sssida{sv})` with `subtext` and `urls` properties (either may
/// be NULL).
int csdbus_append_krunner_match(sd_bus_message *m, const char *id, const char *text, const char *icon,
                                int type, double relevance, const char *subtext, const char *url);

/// Appends one KRunner action: `(sss)`.
int csdbus_append_krunner_action(sd_bus_message *m, const char *id, const char *text, const char *icon);

/// Replies to a method call with no values.
int csdbus_reply_empty(sd_bus_message *call);

/// Frees a NULL-terminated array of strings from sd_bus_message_read_strv().
void csdbus_strv_free(char **strv);
