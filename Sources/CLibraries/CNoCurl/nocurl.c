// The libcurl functions Foundation's URLSession calls, for executables that make no HTTP request.
//
// The MCP SDK has an HTTP client transport, so every executable that links it links
// FoundationNetworking, and with it libcurl and the 28 libraries libcurl loads (TLS, Kerberos,
// LDAP, SSH, ...): 500 more page faults and 6 ms more for every start of the multi-call fsindex,
// fsfind-direct's queries included. FSIndex makes no HTTP request: fsindex-mcp speaks MCP over
// stdio, and the shared index is reached with postgres-nio. These definitions come first in the
// link, so the linker takes them and (with --as-needed) does not record libcurl as needed. Were
// URLSession ever used, its first call stops the process with a message that says why, rather
// than doing something else.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void no_http(const char *function) {
    fprintf(stderr, "fsindex: %s: this program was built without an HTTP client (libcurl); "
                    "URLSession is not available in it\n", function);
    abort();
}

void *curl_easy_init(void) { no_http("curl_easy_init"); return 0; }
void *curl_multi_init(void) { no_http("curl_multi_init"); return 0; }
int curl_global_init(long flags) { (void)flags; no_http("curl_global_init"); return 2; }
void *curl_url(void) { no_http("curl_url"); return 0; }
int curl_easy_setopt(void *handle, int option, ...) { (void)handle; (void)option; no_http("curl_easy_setopt"); return 2; }
int curl_easy_getinfo(void *handle, int info, ...) { (void)handle; (void)info; no_http("curl_easy_getinfo"); return 2; }
int curl_easy_pause(void *handle, int mask) { (void)handle; (void)mask; no_http("curl_easy_pause"); return 2; }
void curl_easy_cleanup(void *handle) { (void)handle; no_http("curl_easy_cleanup"); }
const char *curl_easy_strerror(int code) { (void)code; return "no HTTP client in this program"; }
void curl_free(void *p) { (void)p; no_http("curl_free"); }
int curl_multi_add_handle(void *multi, void *easy) { (void)multi; (void)easy; no_http("curl_multi_add_handle"); return 1; }
int curl_multi_assign(void *multi, int socket, void *data) { (void)multi; (void)socket; (void)data; no_http("curl_multi_assign"); return 1; }
int curl_multi_cleanup(void *multi) { (void)multi; no_http("curl_multi_cleanup"); return 1; }
void *curl_multi_info_read(void *multi, int *left) { (void)multi; (void)left; no_http("curl_multi_info_read"); return 0; }
int curl_multi_remove_handle(void *multi, void *easy) { (void)multi; (void)easy; no_http("curl_multi_remove_handle"); return 1; }
int curl_multi_setopt(void *multi, int option, ...) { (void)multi; (void)option; no_http("curl_multi_setopt"); return 1; }
int curl_multi_socket_action(void *multi, int socket, int mask, int *running) {
    (void)multi; (void)socket; (void)mask; (void)running; no_http("curl_multi_socket_action"); return 1;
}
void *curl_slist_append(void *list, const char *s) { (void)list; (void)s; no_http("curl_slist_append"); return 0; }
void curl_slist_free_all(void *list) { (void)list; no_http("curl_slist_free_all"); }
int curl_url_get(void *url, int part, char **out, unsigned flags) { (void)url; (void)part; (void)out; (void)flags; no_http("curl_url_get"); return 1; }
int curl_url_set(void *url, int part, const char *in, unsigned flags) { (void)url; (void)part; (void)in; (void)flags; no_http("curl_url_set"); return 1; }
char *curl_version(void) { return "none (fsindex has no HTTP client)"; }
void *curl_version_info(int age) { (void)age; no_http("curl_version_info"); return 0; }
