#pragma once
// TagLib files read through an open descriptor instead of a path. TagLib's C API opens files
// only by name; a sandboxed worker has no name it may open (Landlock confines its opens, and
// reopening /proc/self/fd/N is checked against the real file, which lies outside), only the
// descriptor its parent passed. The handle's file is a TagLib::File, which is what the C API's
// TagLib_File is, so the usual taglib_file_tag/audioproperties calls read it.

#ifdef __cplusplus
extern "C" {
#endif

/// Opens `fd` (not taken over: TagLib reads a duplicate) as `type`, a TagLib_File_Type value.
/// Returns a handle, or NULL when the type is unknown or the descriptor cannot be duplicated.
void *taglib_stream_open(int fd, int type);
/// The handle's file, to pass to the C API as a `TagLib_File *`.
void *taglib_stream_file(void *handle);
/// Frees the file, then its stream (which closes the duplicate).
void taglib_stream_close(void *handle);

#ifdef __cplusplus
}
#endif
