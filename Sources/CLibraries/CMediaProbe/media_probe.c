// libavformat through dlopen, on the first media file a worker meets.
//
// Why not link it: libavformat 5.1 pulls in 134 shared libraries (network protocols, codecs,
// Blu-ray, game music...), and every fsindex-worker start would map and relocate them and run
// their constructors: about 100 ms per start on the bench machine, for workers most of which
// never see a video. Loaded late, the cost is paid once per worker that does, inside the
// sandbox: Landlock lets it read /usr (Sandbox+Landlock.swift) and the seccomp filter allows
// the mmap/mprotect a load needs, as for gdk-pixbuf's loader modules. The headers' major
// versions name the libraries to load, so the structures read below are the ones the loaded
// library has; a libavformat of another major version is "not installed" to us.
//
// What a hostile file can reach is kept small: the demuxers are a list (no playlists, no
// image sequences, no network formats), every request to open another resource (a QuickTime
// reference, an HLS segment) is refused, probing is bounded (probesize, analyzeduration,
// streams), decoders run with one thread, and libav's log is kept in a per-thread buffer for
// the error message instead of going to stderr.
#include "CMediaProbe.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/log.h>

#define FSX_STR2(x) #x
#define FSX_STR(x) FSX_STR2(x)

static struct {
    AVFormatContext *(*alloc_context)(void);
    int (*open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*find_stream_info)(AVFormatContext *, AVDictionary **);
    void (*close_input)(AVFormatContext **);
    unsigned (*format_version)(void);
    AVIOContext *(*avio_alloc)(unsigned char *, int, int, void *, int (*)(void *, uint8_t *, int),
                               int (*)(void *, uint8_t *, int), int64_t (*)(void *, int64_t, int));
    void (*avio_free)(AVIOContext **);
    void *(*malloc)(size_t);
    void (*freep)(void *);
    AVDictionaryEntry *(*dict_get)(const AVDictionary *, const char *, const AVDictionaryEntry *, int);
    int (*dict_set)(AVDictionary **, const char *, const char *, int);
    void (*dict_free)(AVDictionary **);
    const char *(*codec_name)(enum AVCodecID);
    void (*log_set_callback)(void (*)(void *, int, const char *, va_list));
    int (*strerror)(int, char *, size_t);
} av;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

/// The last error libav logged on this thread (for the message of a file it cannot read).
static __thread char last_log[256];

static void log_callback(void *context, int level, const char *format, va_list args) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(last_log, sizeof last_log, format, args);
    size_t n = strlen(last_log);
    while (n > 0 && (last_log[n - 1] == '\n' || last_log[n - 1] == ' ')) last_log[--n] = 0;
}

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !load_error[0]) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s", why ? why : name);
    }
    return handle;
}

static void load(void) {
    void *util = open_library("libavutil.so." FSX_STR(LIBAVUTIL_VERSION_MAJOR));
    void *codec = util ? open_library("libavcodec.so." FSX_STR(LIBAVCODEC_VERSION_MAJOR)) : NULL;
    void *format = codec ? open_library("libavformat.so." FSX_STR(LIBAVFORMAT_VERSION_MAJOR)) : NULL;
    if (!format) return;
#define FSX_SYM(lib, field, name) \
    if (!(*(void **)&av.field = dlsym(lib, name))) { \
        snprintf(load_error, sizeof load_error, "libavformat lacks %s", name); return; }
    FSX_SYM(format, alloc_context, "avformat_alloc_context")
    FSX_SYM(format, open_input, "avformat_open_input")
    FSX_SYM(format, find_stream_info, "avformat_find_stream_info")
    FSX_SYM(format, close_input, "avformat_close_input")
    FSX_SYM(format, format_version, "avformat_version")
    FSX_SYM(format, avio_alloc, "avio_alloc_context")
    FSX_SYM(format, avio_free, "avio_context_free")
    FSX_SYM(util, malloc, "av_malloc")
    FSX_SYM(util, freep, "av_freep")
    FSX_SYM(util, dict_get, "av_dict_get")
    FSX_SYM(util, dict_set, "av_dict_set")
    FSX_SYM(util, dict_free, "av_dict_free")
    FSX_SYM(util, log_set_callback, "av_log_set_callback")
    FSX_SYM(util, strerror, "av_strerror")
    FSX_SYM(codec, codec_name, "avcodec_get_name")
#undef FSX_SYM
    if (av.format_version() >> 16 != LIBAVFORMAT_VERSION_MAJOR) {
        snprintf(load_error, sizeof load_error, "libavformat %u is not the %d this was built for",
                 av.format_version() >> 16, LIBAVFORMAT_VERSION_MAJOR);
        av.alloc_context = NULL;
        return;
    }
    av.log_set_callback(log_callback);
}

const char *fsx_media_load(void) {
    pthread_once(&load_once, load);
    if (av.alloc_context && !load_error[0]) return NULL;
    return load_error[0] ? load_error : "libavformat could not be loaded";
}

/// The open file, read with pread at our own position (the descriptor's offset is not ours).
typedef struct {
    int fd;
    int64_t size, position;
} source;

static int read_packet(void *opaque, uint8_t *buffer, int count) {
    source *s = opaque;
    if (s->position >= s->size) return AVERROR_EOF;
    ssize_t n;
    do { n = pread(s->fd, buffer, (size_t)count, s->position); } while (n < 0 && errno == EINTR);
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    s->position += n;
    return (int)n;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    source *s = opaque;
    int64_t target;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return s->size;
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = s->position + offset; break;
    case SEEK_END: target = s->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0) return AVERROR(EINVAL);
    s->position = target;
    return target;
}

/// Another resource a file names (a QuickTime data reference, a playlist's segment): refused.
static int refuse_open(AVFormatContext *context, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)context; (void)pb; (void)url; (void)flags; (void)options;
    return AVERROR(EPERM);
}

struct fsx_media {
    AVFormatContext *context;
    AVIOContext *io;
    source source;
};

/// Containers of video and audio that are files of their own: no playlists (hls, concat),
/// image sequences, network or device formats.
static const char demuxers[] =
    "mov,matroska,avi,asf,flv,mpegts,mpeg,ogg,aac,ac3,eac3,amr,amrnb,amrwb,mp3,flac,wav,w64,aiff,caf,"
    "ape,wv,tta,mpc,mpc8,dts,truehd,mlp,au,voc,dv,nut,rm,ivf,obu,h264,hevc,m4v,gxf,mxf,3gp,wsaud,xwma,dsf,iff";

void fsx_media_close(fsx_media *media) {
    if (!media) return;
    if (media->context) av.close_input(&media->context);
    if (media->io) {
        av.freep(&media->io->buffer);
        av.avio_free(&media->io);
    }
    free(media);
}

static void fail(char *error, size_t size, const char *what, int code) {
    char reason[256] = "";
    if (last_log[0]) snprintf(reason, sizeof reason, "%s", last_log);
    else if (code) av.strerror(code, reason, sizeof reason);
    snprintf(error, size, "%s%s%s", what, reason[0] ? ": " : "", reason);
}

/// Whether the container's header already says what we read of every stream (MP4, Matroska
/// and most others do): then the first frames are not decoded (avformat_find_stream_info: about
/// 10 ms for a 1080p H.264 file, and a decoder fewer for a hostile file to reach).
static int header_suffices(const AVFormatContext *c) {
    if (c->nb_streams == 0 || c->duration == AV_NOPTS_VALUE || c->duration <= 0) return 0;
    for (unsigned i = 0; i < c->nb_streams; i++) {
        const AVStream *s = c->streams[i];
        const AVCodecParameters *p = s->codecpar;
        if (p->codec_id == AV_CODEC_ID_NONE) return 0;
        if (p->codec_type == AVMEDIA_TYPE_VIDEO && !(s->disposition & AV_DISPOSITION_ATTACHED_PIC)
            && (p->width <= 0 || p->height <= 0 || s->avg_frame_rate.num <= 0 || s->avg_frame_rate.den <= 0)) return 0;
        if (p->codec_type == AVMEDIA_TYPE_AUDIO && (p->sample_rate <= 0 || p->ch_layout.nb_channels <= 0)) return 0;
    }
    return 1;
}

fsx_media *fsx_media_open(int fd, int64_t size, char *error, size_t error_size) {
    if (fsx_media_load()) { snprintf(error, error_size, "%s", fsx_media_load()); return NULL; }
    last_log[0] = 0;
    fsx_media *m = calloc(1, sizeof *m);
    if (!m) { snprintf(error, error_size, "out of memory"); return NULL; }
    m->source = (source){ .fd = fd, .size = size, .position = 0 };
    const int buffer_size = 64 << 10;
    unsigned char *buffer = av.malloc(buffer_size);
    if (buffer) m->io = av.avio_alloc(buffer, buffer_size, 0, &m->source, read_packet, NULL, seek);
    if (!m->io) { av.freep(&buffer); free(m); snprintf(error, error_size, "out of memory"); return NULL; }
    AVFormatContext *context = av.alloc_context();
    if (!context) { fsx_media_close(m); snprintf(error, error_size, "out of memory"); return NULL; }
    context->pb = m->io;
    context->flags |= AVFMT_FLAG_CUSTOM_IO;
    context->io_open = refuse_open;
    context->probesize = 4 << 20;
    context->max_analyze_duration = 5 * AV_TIME_BASE;
    context->max_streams = 64;
    AVDictionary *options = NULL;
    av.dict_set(&options, "format_whitelist", demuxers, 0);
    av.dict_set(&options, "protocol_whitelist", "none", 0);
    int code = av.open_input(&context, "", NULL, &options);
    av.dict_free(&options);
    if (code < 0) {   // the context is freed on failure; the I/O context is ours
        fail(error, error_size, "not a container libavformat reads", code);
        fsx_media_close(m);
        return NULL;
    }
    m->context = context;
    if (header_suffices(context)) return m;
    // Codec parameters the header lacks (raw streams: ADTS, AC-3) come from decoding the first
    // packets, one thread per decoder.
    unsigned streams = context->nb_streams;
    AVDictionary **per_stream = streams ? calloc(streams, sizeof *per_stream) : NULL;
    for (unsigned i = 0; per_stream && i < streams; i++) av.dict_set(&per_stream[i], "threads", "1", 0);
    code = av.find_stream_info(context, per_stream);
    for (unsigned i = 0; per_stream && i < streams; i++) av.dict_free(&per_stream[i]);
    free(per_stream);
    if (code < 0 && context->nb_streams == 0) {
        fail(error, error_size, "no stream found", code);
        fsx_media_close(m);
        return NULL;
    }
    return m;
}

const char *fsx_media_format(const fsx_media *m) { return m->context->iformat ? m->context->iformat->name : NULL; }

double fsx_media_duration(const fsx_media *m) {
    if (m->context->duration != AV_NOPTS_VALUE && m->context->duration > 0) return (double)m->context->duration / AV_TIME_BASE;
    return -1;
}

int64_t fsx_media_bit_rate(const fsx_media *m) {
    if (m->context->bit_rate > 0) return m->context->bit_rate;
    // What avformat_find_stream_info would estimate, when it was not needed: size over duration.
    double seconds = fsx_media_duration(m);
    return seconds > 0 && m->source.size > 0 ? (int64_t)((double)m->source.size * 8 / seconds) : 0;
}

const char *fsx_media_tag(const fsx_media *m, int stream, const char *key) {
    const AVDictionary *tags = m->context->metadata;
    if (stream >= 0) {
        if ((unsigned)stream >= m->context->nb_streams) return NULL;
        tags = m->context->streams[stream]->metadata;
    }
    AVDictionaryEntry *e = av.dict_get(tags, key, NULL, 0);
    return e && e->value && e->value[0] ? e->value : NULL;
}

int fsx_media_stream_count(const fsx_media *m) { return (int)m->context->nb_streams; }

void fsx_media_stream(const fsx_media *m, int index, fsx_stream_info *out) {
    memset(out, 0, sizeof *out);
    if (index < 0 || (unsigned)index >= m->context->nb_streams) { out->kind = 3; return; }
    const AVStream *s = m->context->streams[index];
    const AVCodecParameters *p = s->codecpar;
    switch (p->codec_type) {
    case AVMEDIA_TYPE_VIDEO: out->kind = 0; break;
    case AVMEDIA_TYPE_AUDIO: out->kind = 1; break;
    case AVMEDIA_TYPE_SUBTITLE: out->kind = 2; break;
    default: out->kind = 3; break;
    }
    out->codec = p->codec_id != AV_CODEC_ID_NONE ? av.codec_name(p->codec_id) : NULL;
    out->width = p->width;
    out->height = p->height;
    AVRational rate = s->avg_frame_rate.num > 0 && s->avg_frame_rate.den > 0 ? s->avg_frame_rate : s->r_frame_rate;
    if (rate.num > 0 && rate.den > 0) { out->fps_num = rate.num; out->fps_den = rate.den; }
    out->bit_rate = p->bit_rate > 0 ? p->bit_rate : 0;
    out->sample_rate = p->sample_rate;
    out->channels = p->ch_layout.nb_channels;
    out->language = fsx_media_tag(m, index, "language");
    out->attached_picture = (s->disposition & AV_DISPOSITION_ATTACHED_PIC) != 0;
}

int fsx_media_chapter_count(const fsx_media *m) { return (int)m->context->nb_chapters; }

double fsx_media_chapter(const fsx_media *m, int index, double *end, const char **title) {
    const AVChapter *c = m->context->chapters[index];
    double unit = c->time_base.den ? (double)c->time_base.num / c->time_base.den : 0;
    *end = (double)c->end * unit;
    AVDictionaryEntry *e = av.dict_get(c->metadata, "title", NULL, 0);
    *title = e && e->value && e->value[0] ? e->value : NULL;
    return (double)c->start * unit;
}
