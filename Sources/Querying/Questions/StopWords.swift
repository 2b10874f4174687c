/// Words that say how a question is asked, not what it is about: English function words, and
/// the words of a request itself ("find the documentation for …", "how do I …").
///
/// Why a list of our own: Snowball's and Lucene's English lists are function words only; a
/// question to a file search also carries the request ("find", "show me", "docs", "page"),
/// which every file of the corpus could match. A word here is dropped from a question's
/// relaxed stages (all of its content words, then any of them), never from the query as typed,
/// which runs first (`QuestionRouter`): a title such as "The Book of Rust" still finds itself.
package enum StopWords {
    /// Function words (English): articles, pronouns, auxiliaries, prepositions, conjunctions,
    /// question words.
    package static let english: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
        "can", "could", "did", "do", "does", "doing", "down", "during", "each", "else", "etc", "ever", "every",
        "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
        "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "lets", "like",
        "may", "me", "might", "more", "most", "must", "my", "myself", "no", "nor", "not", "now",
        "of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own",
        "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
        "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon", "us",
        "very", "was", "we", "were", "what", "whats", "when", "where", "which", "while", "who", "whom", "whose", "why",
        "will", "with", "within", "without", "would", "you", "your", "yours", "yourself",
        "s", "t", "d", "ll", "m", "re", "ve", "don", "doesn", "isn", "aren", "can't", "cannot",
    ]

    /// The words of the request around a question ("find me the docs for …", "is there a page
    /// that explains …").
    package static let request: Set<String> = [
        "find", "search", "show", "look", "looking", "give", "get", "want", "need", "help", "tell",
        "documentation", "docs", "doc", "page", "pages", "reference", "manual",
        "explain", "explains", "explaining", "describe", "describes", "information", "info",
        "way", "something", "anything", "thing", "things", "please", "possible", "able", "there",
        "using", "use", "used", "via", "somehow", "related", "regarding", "about",
    ]

    /// Whether `word` (lowercase) carries no subject of its own.
    package static func contains(_ word: String) -> Bool {
        english.contains(word) || request.contains(word)
    }
}
