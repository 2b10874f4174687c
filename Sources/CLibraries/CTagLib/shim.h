#include <tag_c.h>
