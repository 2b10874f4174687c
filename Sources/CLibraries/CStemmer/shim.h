// Snowball's stemmers (libstemmer, Debian: libstemmer-dev): a word's stem in its language.
#include <libstemmer.h>
