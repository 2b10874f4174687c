// ICU's common data for FSIndex's executables, trimmed to what they use (34 MB -> 1.7 MB; see
// Config/packaging/trim-icu-data, which writes include/icudata.dat and the symbol's name).
// Defining ICU's data symbol here keeps the linker from taking the toolchain's full copy from
// lib_FoundationICU.a; ICU finds its data through this symbol alone.
#include "icudata-symbol.h"

    .section .rodata.fsindex_icudata,"a",@progbits
    .globl FSINDEX_ICU_DATA_SYMBOL
    .type FSINDEX_ICU_DATA_SYMBOL, @object
    .balign 16
FSINDEX_ICU_DATA_SYMBOL:
    .incbin "icudata.dat"
    .size FSINDEX_ICU_DATA_SYMBOL, . - FSINDEX_ICU_DATA_SYMBOL

    .section .note.GNU-stack,"",@progbits
