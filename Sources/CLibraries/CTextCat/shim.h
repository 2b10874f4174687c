#include <stdio.h>
#include <textcat.h>
#include <fingerprint.h>
