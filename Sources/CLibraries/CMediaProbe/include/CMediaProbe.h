#ifndef CMEDIAPROBE_H
#define CMEDIAPROBE_H
// A media file's container facts through libavformat, which is loaded on first use (dlopen):
// see media_probe.c for why. Nothing here names a libav type, so the Swift side needs no
// libav headers and the worker links no libav library.
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fsx_media fsx_media;

/// One stream of a container.
typedef struct {
    /// 0 video, 1 audio, 2 subtitle, 3 anything else (data, attachments).
    int kind;
    /// libavcodec's short codec name ("h264", "aac", "subrip"), or NULL.
    const char *codec;
    int width, height;
    /// The average frame rate, else the container's base rate; 0/0 when unknown.
    int fps_num, fps_den;
    /// Bits per second; 0 when unknown.
    int64_t bit_rate;
    int sample_rate, channels;
    /// The stream's `language` tag (ISO 639-2, "deu"), or NULL.
    const char *language;
    /// A picture attached as cover art, not a video track.
    int attached_picture;
} fsx_stream_info;

/// NULL when libavformat is loaded (loading it the first time), else why it cannot be.
const char *fsx_media_load(void);

/// Reads the container of the open file `fd` (`size` bytes) through pread: never by a name.
/// NULL on failure, with a message in `error`.
fsx_media *fsx_media_open(int fd, int64_t size, char *error, size_t error_size);
void fsx_media_close(fsx_media *media);

/// The demuxer's name ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "avi").
const char *fsx_media_format(const fsx_media *media);
/// Seconds; negative when unknown.
double fsx_media_duration(const fsx_media *media);
/// Bits per second of the whole file; 0 when unknown.
int64_t fsx_media_bit_rate(const fsx_media *media);
/// The container's tag `key` (case-insensitive), or NULL; `stream` >= 0 reads that stream's tags.
const char *fsx_media_tag(const fsx_media *media, int stream, const char *key);

int fsx_media_stream_count(const fsx_media *media);
void fsx_media_stream(const fsx_media *media, int index, fsx_stream_info *out);

int fsx_media_chapter_count(const fsx_media *media);
/// Chapter `index`'s start in seconds; its end in `*end` and its title (or NULL) in `*title`.
double fsx_media_chapter(const fsx_media *media, int index, double *end, const char **title);

#ifdef __cplusplus
}
#endif
#endif
