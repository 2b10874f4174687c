#pragma once
#include <stddef.h>

/// Tesseract's C API, loaded on first use with dlopen (see tesseract.c for why), behind a few
/// calls that take and give plain C values. None of these may be called from two threads at
/// once on one handle: Tesseract's API object is not thread-safe.

/// Loads libtesseract.so.5 and resolves the calls used below. Returns 1, or 0 with the reason in
/// `error` (`size` bytes, NUL-terminated). Safe to call again: once loaded, it stays loaded.
int ctess_load(char *error, size_t size);

/// A recognizer for `languages` ("eng", "eng+deu") from `datapath` (the tessdata folder), set to
/// automatic page segmentation. NULL when Tesseract cannot initialise (a language without its
/// data). Free with `ctess_delete`.
void *ctess_create(const char *datapath, const char *languages);

/// Recognises an 8-bit grayscale image (`bytes_per_line` apart) of `ppi` pixels per inch (0:
/// let Tesseract estimate it). Returns the UTF-8 text (free with `free`), or NULL; `confidence`
/// gets the mean word confidence, 0 to 100.
char *ctess_recognize(void *api, const unsigned char *pixels, int width, int height, int bytes_per_line, int ppi,
                      int *confidence);

/// The languages whose data the recognizer found, "+"-joined into `out` (`size` bytes).
void ctess_languages(void *api, char *out, size_t size);

void ctess_delete(void *api);
