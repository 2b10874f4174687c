import TestSupport

/// Office Open XML and OpenDocument files for `ArchiveFixture.write(_:format: .zip, members:)`.
extension GeneratedFixture {
    static let contentTypes = ArchiveFixture.Member("[Content_Types].xml", #"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#)

    static func rootRels(_ target: String) -> ArchiveFixture.Member {
        ArchiveFixture.Member("_rels/.rels", #"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="\#(target)"/></Relationships>"#)
    }

    static func core(title: String, creator: String) -> ArchiveFixture.Member {
        ArchiveFixture.Member("docProps/core.xml", #"<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>\#(title)</dc:title><dc:creator>\#(creator)</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">2024-01-02T03:04:05Z</dcterms:created></cp:coreProperties>"#)
    }

    static func app(_ application: String, extra: String = "") -> ArchiveFixture.Member {
        ArchiveFixture.Member("docProps/app.xml", #"<?xml version="1.0"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>\#(application)</Application>\#(extra)</Properties>"#)
    }

    static func rels(_ name: String, _ targets: [(id: String, type: String, target: String)]) -> ArchiveFixture.Member {
        let body = targets.map { #"<Relationship Id="\#($0.id)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/\#($0.type)" Target="\#($0.target)"/>"# }.joined()
        return ArchiveFixture.Member(name, #"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\#(body)</Relationships>"#)
    }

    /// A workbook of two sheets, listed in the workbook in the opposite order of their part names.
    static func xlsx() -> [ArchiveFixture.Member] {
        let ns = #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#
        return [
            contentTypes, rootRels("xl/workbook.xml"), core(title: "Generated workbook", creator: "Ada Lovelace"), app("Microsoft Excel"),
            ArchiveFixture.Member("xl/workbook.xml", #"<?xml version="1.0"?><workbook \#(ns)><sheets><sheet name="Squares" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId2"/></sheets></workbook>"#),
            rels("xl/_rels/workbook.xml.rels", [("rId1", "worksheet", "worksheets/sheet2.xml"), ("rId2", "worksheet", "worksheets/sheet1.xml"),
                                                ("rId3", "sharedStrings", "sharedStrings.xml")]),
            ArchiveFixture.Member("xl/sharedStrings.xml", #"<?xml version="1.0"?><sst \#(ns) count="3" uniqueCount="3"><si><t>Number</t></si><si><t>Square</t></si><si><r><t>Analytical </t></r><r><t>Engine</t></r></si></sst>"#),
            ArchiveFixture.Member("xl/worksheets/sheet2.xml", #"<?xml version="1.0"?><worksheet \#(ns)><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2"><v>3</v></c><c r="B2"><v>9</v></c></row><row r="3"><c r="A3"><v>12</v></c><c r="B3"><v>144</v></c></row></sheetData></worksheet>"#),
            ArchiveFixture.Member("xl/worksheets/sheet1.xml", #"<?xml version="1.0"?><worksheet \#(ns)><sheetData><row r="1"><c r="A1" t="s"><v>2</v></c><c r="B1" t="inlineStr"><is><t>Difference engine</t></is></c></row></sheetData></worksheet>"#),
        ]
    }

    /// A presentation of two slides, listed in the presentation in the opposite order of their part names.
    static func pptx() -> [ArchiveFixture.Member] {
        let ns = #"xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main""#
        func slide(_ paragraphs: [String]) -> String {
            let ps = paragraphs.map { "<a:p><a:r><a:t>\($0)</a:t></a:r></a:p>" }.joined()
            return #"<?xml version="1.0"?><p:sld \#(ns)><p:cSld><p:spTree><p:sp><p:txBody>\#(ps)</p:txBody></p:sp></p:spTree></p:cSld></p:sld>"#
        }
        return [
            contentTypes, rootRels("ppt/presentation.xml"), core(title: "Generated slides", creator: "Grace Hopper"),
            app("Microsoft Office PowerPoint", extra: "<Slides>2</Slides>"),
            ArchiveFixture.Member("ppt/presentation.xml", #"<?xml version="1.0"?><p:presentation \#(ns)><p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>"#),
            rels("ppt/_rels/presentation.xml.rels", [("rId2", "slide", "slides/slide2.xml"), ("rId3", "slide", "slides/slide1.xml")]),
            ArchiveFixture.Member("ppt/slides/slide2.xml", slide(["Opening slide", "Nanoseconds and microseconds"])),
            ArchiveFixture.Member("ppt/slides/slide1.xml", slide(["Closing slide", "Questions welcome"])),
        ]
    }

    /// An OpenDocument text with every meta.xml field the extractor reads.
    static func odt() -> [ArchiveFixture.Member] {
        let office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
        return [
            ArchiveFixture.Member("mimetype", "application/vnd.oasis.opendocument.text"),
            ArchiveFixture.Member("META-INF/manifest.xml", #"<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>"#),
            ArchiveFixture.Member("meta.xml", #"<?xml version="1.0"?><office:document-meta xmlns:office="\#(office)" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"><office:meta><meta:generator>FSIndex tests/1.0</meta:generator><dc:title>Generated text</dc:title><dc:subject>Test document</dc:subject><meta:keyword>alpha</meta:keyword><meta:keyword>beta</meta:keyword><dc:description>A document written by a test</dc:description><meta:initial-creator>Ada Lovelace</meta:initial-creator><dc:creator>Charles Babbage</dc:creator><meta:creation-date>2024-01-02T03:04:05Z</meta:creation-date><dc:date>2024-02-03T04:05:06Z</dc:date><dc:language>en-GB</dc:language><meta:document-statistic meta:page-count="2" meta:word-count="20"/></office:meta></office:document-meta>"#),
            ArchiveFixture.Member("content.xml", #"<?xml version="1.0"?><office:document-content xmlns:office="\#(office)" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text><text:h text:outline-level="1">The engine</text:h><text:p>Notes on the analytical engine, written in 1843.</text:p><text:list><text:list-item><text:p>First item</text:p></text:list-item><text:list-item><text:p>Second item</text:p></text:list-item></text:list></office:text></office:body></office:document-content>"#),
        ]
    }
}
