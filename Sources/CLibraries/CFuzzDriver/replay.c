// The fallback for builds without libFuzzer (a plain `swift build`/`swift test`): replays
// inputs instead of fuzzing, so that `fsindex-fuzz TARGET FILE|DIR...` still checks the seed
// corpus and every crash found so far, without sanitizers.
//
// libFuzzer's own LLVMFuzzerRunDriver is a strong definition: when `-sanitize=fuzzer` links the
// fuzzer runtime, it replaces this weak one.
#include "CFuzzDriver.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/// Reads all of `path` into a fresh buffer; NULL (with errno set) when it cannot.
static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t capacity = 4096, n = 0;
    uint8_t *data = malloc(capacity);
    while (data) {
        n += fread(data + n, 1, capacity - n, f);
        if (n < capacity) break;
        capacity *= 2;
        uint8_t *bigger = realloc(data, capacity);
        if (!bigger) free(data);
        data = bigger;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) { free(data); errno = EIO; return NULL; }
    *size = n;
    return data;
}

/// Runs `callback` on one file; 0 on success, 1 when the file cannot be read (said on stderr).
static int replay_file(const char *path, int (*callback)(const uint8_t *, size_t)) {
    size_t size = 0;
    uint8_t *data = read_file(path, &size);
    if (!data) {
        fprintf(stderr, "fsindex-fuzz: %s: %s\n", path, strerror(errno));
        return 1;
    }
    callback(data, size);
    free(data);
    return 0;
}

__attribute__((weak))
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) {
    int failures = 0, inputs = 0, flags = 0;
    for (int i = 1; i < *argc; i++) {
        const char *arg = (*argv)[i];
        if (arg[0] == '-') { flags++; continue; }
        struct stat st;
        if (stat(arg, &st) != 0) {
            fprintf(stderr, "fsindex-fuzz: %s: %s\n", arg, strerror(errno));
            failures++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failures += replay_file(arg, callback);
            inputs++;
            continue;
        }
        struct dirent **names = NULL;
        int n = scandir(arg, &names, NULL, alphasort);
        if (n < 0) {
            fprintf(stderr, "fsindex-fuzz: %s: %s\n", arg, strerror(errno));
            failures++;
            continue;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            struct stat entry;
            if (snprintf(path, sizeof path, "%s/%s", arg, names[k]->d_name) >= (int)sizeof path) {
                fprintf(stderr, "fsindex-fuzz: %s/%s: the path is too long\n", arg, names[k]->d_name);
                failures++;
            } else if (stat(path, &entry) == 0 && S_ISREG(entry.st_mode)) {
                failures += replay_file(path, callback);
                inputs++;
            }
            free(names[k]);
        }
        free(names);
    }
    if (flags > 0)
        fprintf(stderr, "fsindex-fuzz: built without libFuzzer (-sanitize=fuzzer), so this only replays inputs; "
                        "%d option(s) ignored. Build it with Tests/Harnesses/fuzz.sh to fuzz.\n", flags);
    fprintf(stderr, "fsindex-fuzz: replayed %d input(s)%s\n", inputs, failures ? ", some could not be read" : "");
    return failures ? 1 : 0;
}
