import Attributes

/// The attribute names a query may use: ours (`pixelWidth`), and Spotlight's `kMDItem…` names
/// for every attribute we store that Spotlight names, so that `mdfind` queries run unchanged.
///
/// For example:
/// ```swift
/// try AttributeNames.resolve("kMDItemFSName")   // .name
/// try AttributeNames.resolve("pixelwidth")      // .pixelWidth (case does not matter)
/// try AttributeNames.resolve("kMDItemPixelWidht")
/// // throws: unknown attribute "kMDItemPixelWidht"; did you mean kMDItemPixelWidth?
/// ```
package enum AttributeNames {
    /// Spotlight's names and the attribute each stands for.
    package static let spotlight: [String: AttributeKey] = [
        "kMDItemFSName": .name, "kMDItemDisplayName": .displayName, "kMDItemPath": .path,
        "kMDItemFSSize": .fileSize, "kMDItemLogicalSize": .fileSize, "kMDItemPhysicalSize": .fileSize,
        "kMDItemFSContentChangeDate": .fsContentChangeDate, "kMDItemFSCreationDate": .fsCreationDate,
        "kMDItemContentModificationDate": .contentModificationDate, "kMDItemContentCreationDate": .contentCreationDate,
        "kMDItemAttributeChangeDate": .attributeChangeDate, "kMDItemLastUsedDate": .lastUsedDate,
        "kMDItemUseCount": .useCount,
        "kMDItemFSOwnerUserID": .ownerName, "kMDItemFSOwnerGroupID": .groupName,
        "kMDItemContentType": .contentType, "kMDItemContentTypeTree": .contentTypeTree, "kMDItemKind": .kind,
        "kMDItemTextContent": .textContent, "kMDItemTitle": .title, "kMDItemSubject": .subject,
        "kMDItemAuthors": .authors, "kMDItemKeywords": .keywords, "kMDItemDescription": .contentDescription, "kMDItemHeadline": .headline,
        "kMDItemLanguages": .language, "kMDItemCreator": .generator, "kMDItemEncodingApplications": .producer,
        "kMDItemNumberOfPages": .pageCount, "kMDItemPageWidth": .pageWidth, "kMDItemPageHeight": .pageHeight,
        "kMDItemSecurityMethod": .securityMethod, "kMDItemIdentifier": .identifier, "kMDItemPublishers": .publishers,
        "kMDItemAuthorEmailAddresses": .authorEmailAddresses, "kMDItemRecipients": .recipients,
        "kMDItemRecipientEmailAddresses": .recipientEmailAddresses,
        "kMDItemPixelWidth": .pixelWidth, "kMDItemPixelHeight": .pixelHeight, "kMDItemOrientation": .orientation,
        "kMDItemAcquisitionMake": .acquisitionMake, "kMDItemAcquisitionModel": .acquisitionModel,
        "kMDItemLatitude": .latitude, "kMDItemLongitude": .longitude, "kMDItemAltitude": .altitude,
        "kMDItemExposureTimeSeconds": .exposureTime, "kMDItemFNumber": .fNumber, "kMDItemFocalLength": .focalLength,
        "kMDItemISOSpeed": .isoSpeed,
        "kMDItemMusicalGenre": .genre, "kMDItemAlbum": .album, "kMDItemComposer": .composer,
        "kMDItemAudioTrackNumber": .audioTrackNumber, "kMDItemRecordingDate": .recordingDate,
        "kMDItemDurationSeconds": .duration, "kMDItemAudioBitRate": .audioBitRate,
        "kMDItemAudioSampleRate": .audioSampleRate, "kMDItemAudioChannelCount": .audioChannelCount,
        // Video (issue 28).
        "kMDItemCodecs": .codecs, "kMDItemMediaTypes": .mediaTypes, "kMDItemVideoBitRate": .videoBitRate,
        "kMDItemTotalBitRate": .totalBitRate,
        // From extended attributes. kMDItemStarRating counts 0-5 stars; ours is Baloo's 0-10
        // (two per star), so `kMDItemStarRating >= 8` means four stars or more.
        "kMDItemUserTags": .userTags, "kMDItemComment": .comment, "kMDItemFinderComment": .comment,
        "kMDItemWhereFroms": .whereFroms, "kMDItemStarRating": .rating,
    ]

    /// Every name a query accepts, for suggestions: ours and Spotlight's.
    static let all: [String] = (AttributeKey.types.keys.map(\.rawValue) + spotlight.keys).sorted()

    private static let byLowercase: [String: AttributeKey] = {
        var out: [String: AttributeKey] = [:]
        for k in AttributeKey.types.keys { out[k.rawValue.lowercased()] = k }
        for (name, k) in spotlight { out[name.lowercased()] = k }
        return out
    }()

    /// The attribute `name` stands for, whatever its case; throws with the closest names.
    package static func resolve(_ name: String) throws(UnknownAttribute) -> AttributeKey {
        if let k = byLowercase[name.lowercased()] { return k }
        throw UnknownAttribute(name: name, suggestions: suggestions(for: name))
    }

    /// The known names nearest to `name` by edit distance (case-insensitive): those at the
    /// smallest distance found, if it is small for the name's length; at most three.
    static func suggestions(for name: String) -> [String] {
        nearest(to: name, in: all)
    }

    /// The names in `candidates` nearest to `name`, as `suggestions(for:)` picks them.
    static func nearest(to name: String, in candidates: [String]) -> [String] {
        let target = Array(name.lowercased().unicodeScalars)
        let limit = max(2, target.count / 3)
        // Names whose lengths differ by more than the limit are farther than it: skipping them
        // keeps a 40 KB "attribute" (fuzzed, or a query pasted in the wrong place) from costing
        // a quadratic distance against every name, seconds of work, for no suggestion.
        let scored = Set(candidates).filter { abs($0.lowercased().unicodeScalars.count - target.count) <= limit }
            .map { ($0, distance(target, Array($0.lowercased().unicodeScalars))) }
        guard let best = scored.map(\.1).min(), best <= limit else { return [] }
        return scored.filter { $0.1 == best }.map(\.0).sorted().prefix(3).map { $0 }
    }

    /// Levenshtein distance.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// A query names an attribute nobody stores.
package struct UnknownAttribute: Error, Sendable, Hashable, CustomStringConvertible {
    package var name: String
    package var suggestions: [String]

    package var description: String {
        "unknown attribute \"\(name)\"" + (suggestions.isEmpty ? "" : "; did you mean \(suggestions.joined(separator: ", "))?")
    }
}
