#pragma once
// The C library's declarations the small fsfind uses, for its Embedded Swift build
// (Config/packaging/build-fsfind lists this header in its module map; SwiftPM's builds do not
// see it, and get the same declarations through the Glibc module).
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <pwd.h>
