import Attributes
import ExtractionModel

/// The file-system facts as a stage of `ExtractionContext` (the attributes themselves are made in
/// `ExtractionModel`, where the parent process uses them without any parser).
extension FileSystemExtractor: Extractor {
    package func accepts(_ input: ExtractionInput) -> Bool { true }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        var names = UserNameCache()
        attributes.merge(self.attributes(of: input.facts, names: &names))
    }
}
