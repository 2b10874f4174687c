#include "CTagLibStream.h"
#include <unistd.h>
#include <fcntl.h>
#include <taglib/tfilestream.h>
#include <taglib/mpegfile.h>
#include <taglib/flacfile.h>
#include <taglib/vorbisfile.h>
#include <taglib/mp4file.h>
#include <taglib/asffile.h>
#include <taglib/id3v2framefactory.h>
#include <taglib/tag_c.h>

namespace {
struct Handle {
    TagLib::FileStream *stream;
    TagLib::File *file;
};
}

extern "C" void *taglib_stream_open(int fd, int type) {
    // FileStream(int) fdopen()s the descriptor and fcloses it: give it a duplicate. Reads go
    // through its own FILE position; the extractor's pread calls do not care.
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) return nullptr;
    auto *stream = new TagLib::FileStream(copy, true);
    if (!stream->isOpen()) { delete stream; return nullptr; }
    auto *factory = TagLib::ID3v2::FrameFactory::instance();
    TagLib::File *file = nullptr;
    switch (type) {
    case TagLib_File_MPEG: file = new TagLib::MPEG::File(stream, factory, true); break;
    case TagLib_File_FLAC: file = new TagLib::FLAC::File(stream, factory, true); break;
    case TagLib_File_OggVorbis: file = new TagLib::Ogg::Vorbis::File(stream, true); break;
    case TagLib_File_MP4: file = new TagLib::MP4::File(stream, true); break;
    case TagLib_File_ASF: file = new TagLib::ASF::File(stream, true); break;
    default: break;
    }
    if (!file) { delete stream; return nullptr; }
    return new Handle{stream, file};
}

extern "C" void *taglib_stream_file(void *handle) {
    return static_cast<Handle *>(handle)->file;
}

extern "C" void taglib_stream_close(void *handle) {
    auto *h = static_cast<Handle *>(handle);
    delete h->file;
    delete h->stream;
    delete h;
}
