/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil): the
/// one conversion the readers of dates share (document fields, EXIF and XMP, MP4 and audio tags,
/// time zone rules), exact for any year and free of the C library's time zone and locale.
func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}
