// CICUData has no API: it defines ICU's data symbol (icudata.S). Executables that link
// Foundation depend on it so that they carry the trimmed data, not ICU's full 34 MB.
