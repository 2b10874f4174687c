#pragma once
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's public driver (compiler-rt, FuzzerDriver.cpp). In a build made with
/// `-sanitize=fuzzer` the fuzzer runtime defines it; in any other build the weak fallback in
/// replay.c does, which runs the callback once on each file named on the command line.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
