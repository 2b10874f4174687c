// Written by Config/packaging/trim-icu-data: the toolchain's ICU data symbol.
#define FSINDEX_ICU_DATA_SYMBOL icudt76_dat
