import CPoppler
import Glibc

/// The words people add to a PDF without changing its pages: comments and sticky notes, the
/// notes of highlights, underlines and strike-outs, free text boxes, stamps and drawn shapes,
/// read with poppler-glib (`poppler_page_get_annot_mapping`). Before issue 28 they were not
/// read, so a reviewer's note was not found.
///
/// Each markup annotation gives its label (`/T`, the author, as Acrobat writes it), its subject
/// (`/Subj`) where it says more than the type's name, and its contents (`/Contents`); other
/// annotations give their contents. Links (their contents, if any, repeat the page), form
/// fields (widgets: their values are the form's, not a note) and popups (the window of another
/// annotation, whose contents they repeat) are skipped. Core Spotlight has no attribute for a
/// document's comments (`kMDItemComment` is the Finder's comment on the file), so they go into
/// `textContent` only, after the page's own text.
///
/// For example, a highlight on page 1 with the note "check the figure" by "Ada" gives the lines
/// `Ada` and `check the figure` after page 1's text.
extension PDFExtractor {
    /// Annotations read per page at most (a hostile page can hold millions).
    static let maxAnnotationsPerPage = 2000

    /// The texts of `page`'s annotations, in the page's order, each once per annotation.
    static func annotationTexts(_ page: OpaquePointer) -> [String] {
        guard let mapping = poppler_page_get_annot_mapping(page) else { return [] }
        defer { poppler_page_free_annot_mapping(mapping) }
        var out: [String] = []
        var node: UnsafeMutablePointer<GList>? = mapping
        var seen = 0
        while let n = node, seen < maxAnnotationsPerPage {
            defer { node = cpoppler_list_next(n); seen += 1 }
            guard let annot = cpoppler_mapping_annot(n) else { continue }
            let type = poppler_annot_get_annot_type(annot)
            if type == POPPLER_ANNOT_LINK || type == POPPLER_ANNOT_WIDGET || type == POPPLER_ANNOT_POPUP { continue }
            var parts: [String] = []
            if let markup = cpoppler_as_markup(annot) {
                if let label = DocumentFields.clean(take(poppler_annot_markup_get_label(markup))) { parts.append(label) }
                if let subject = DocumentFields.clean(take(poppler_annot_markup_get_subject(markup))),
                   !genericSubjects.contains(subject.lowercased()) {
                    parts.append(subject)
                }
            }
            if let contents = DocumentFields.clean(take(poppler_annot_get_contents(annot))) { parts.append(contents) }
            out += parts
        }
        return out
    }

    /// Subjects that only name the annotation's type, as editors fill them in by default.
    static let genericSubjects: Set<String> = [
        "note", "comment", "highlight", "underline", "squiggly", "strikeout", "strike-out", "cross-out",
        "text box", "typewriter", "free text", "rectangle", "oval", "line", "arrow", "polygon", "polygonal line",
        "pencil", "ink", "stamp", "caret", "inserted text", "replace text", "file attachment", "sound",
    ]
}
