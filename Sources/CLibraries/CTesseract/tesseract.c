// Tesseract through dlopen, not linked: libtesseract.so.5 pulls in 56 shared libraries (curl,
// OpenSSL, LDAP, libarchive, ...), and linking it into fsindex-worker added 38 ms to every
// worker's start (measured: a C program linked with -ltesseract -llept starts in 41 ms, one
// without in 2.4 ms). Only the worker that runs OCR, after all other extraction, pays that now.
// The header gives the real prototypes, so each pointer below is checked against them.
#include "CTesseract.h"
#include <tesseract/capi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int loaded;
    __typeof__(&TessBaseAPICreate) create;
    __typeof__(&TessBaseAPIInit3) init3;
    __typeof__(&TessBaseAPISetPageSegMode) setPageSegMode;
    __typeof__(&TessBaseAPISetImage) setImage;
    __typeof__(&TessBaseAPISetSourceResolution) setSourceResolution;
    __typeof__(&TessBaseAPIGetUTF8Text) getUTF8Text;
    __typeof__(&TessBaseAPIMeanTextConf) meanTextConf;
    __typeof__(&TessBaseAPIClear) clear;
    __typeof__(&TessBaseAPIEnd) end;
    __typeof__(&TessBaseAPIDelete) delete_;
    __typeof__(&TessDeleteText) deleteText;
    __typeof__(&TessBaseAPIGetLoadedLanguagesAsVector) loadedLanguages;
    __typeof__(&TessDeleteTextArray) deleteTextArray;
} T;

static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

int ctess_load(char *error, size_t size) {
    pthread_mutex_lock(&loading);
    if (T.loaded) { pthread_mutex_unlock(&loading); return 1; }
    void *lib = dlopen("libtesseract.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(error, size, "cannot load Tesseract (libtesseract.so.5): %s; install the tesseract-ocr package", dlerror());
        pthread_mutex_unlock(&loading);
        return 0;
    }
#define RESOLVE(field, name) \
    if (!(T.field = (__typeof__(T.field))dlsym(lib, #name))) { \
        snprintf(error, size, "libtesseract.so.5 lacks %s; Tesseract 4 or later is needed", #name); \
        pthread_mutex_unlock(&loading); return 0; }
    RESOLVE(create, TessBaseAPICreate)
    RESOLVE(init3, TessBaseAPIInit3)
    RESOLVE(setPageSegMode, TessBaseAPISetPageSegMode)
    RESOLVE(setImage, TessBaseAPISetImage)
    RESOLVE(setSourceResolution, TessBaseAPISetSourceResolution)
    RESOLVE(getUTF8Text, TessBaseAPIGetUTF8Text)
    RESOLVE(meanTextConf, TessBaseAPIMeanTextConf)
    RESOLVE(clear, TessBaseAPIClear)
    RESOLVE(end, TessBaseAPIEnd)
    RESOLVE(delete_, TessBaseAPIDelete)
    RESOLVE(deleteText, TessDeleteText)
    RESOLVE(loadedLanguages, TessBaseAPIGetLoadedLanguagesAsVector)
    RESOLVE(deleteTextArray, TessDeleteTextArray)
#undef RESOLVE
    T.loaded = 1;
    pthread_mutex_unlock(&loading);
    return 1;
}

void *ctess_create(const char *datapath, const char *languages) {
    if (!T.loaded) return NULL;
    TessBaseAPI *api = T.create();
    if (!api) return NULL;
    if (T.init3(api, datapath, languages) != 0) {
        T.delete_(api);
        return NULL;
    }
    // The tesseract command's default; the API's own is a single block, which reads a
    // screenshot's columns as one.
    T.setPageSegMode(api, PSM_AUTO);
    return api;
}

char *ctess_recognize(void *api, const unsigned char *pixels, int width, int height, int bytes_per_line, int ppi,
                      int *confidence) {
    if (!T.loaded || !api) return NULL;
    T.setImage(api, pixels, width, height, 1, bytes_per_line);
    if (ppi > 0) T.setSourceResolution(api, ppi);
    char *text = T.getUTF8Text(api);
    *confidence = text ? T.meanTextConf(api) : 0;
    char *copy = text ? strdup(text) : NULL;
    if (text) T.deleteText(text);
    T.clear(api);
    return copy;
}

void ctess_languages(void *api, char *out, size_t size) {
    if (size) out[0] = 0;
    if (!T.loaded || !api) return;
    char **list = T.loadedLanguages(api);
    if (!list) return;
    size_t used = 0;
    for (char **p = list; *p; p++) {
        int n = snprintf(out + used, size - used, "%s%s", used ? "+" : "", *p);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
    T.deleteTextArray(list);
}

void ctess_delete(void *api) {
    if (!T.loaded || !api) return;
    T.end(api);
    T.delete_(api);
}
