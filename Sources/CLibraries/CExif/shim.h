#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include <libexif/exif-utils.h>
// ExifData.ifd is a C array (a tuple in Swift): one IFD by index, or NULL.
static inline ExifContent *cexif_content(ExifData *d, ExifIfd ifd) {
    return (d && (int)ifd >= 0 && ifd < EXIF_IFD_COUNT) ? d->ifd[ifd] : (ExifContent *)0;
}
