extension TextUnits {
    /// Words that say little about what a text is about, in the languages the index meets most
    /// (English, German, French, Spanish) and the commonest Chinese function characters (Japanese
    /// kana runs are weighted down as a class, see `unit`). They still count a tenth of a word,
    /// so a text made of them still ranks its sentences. Stored as hashes, as words are compared.
    static let stopwords: Set<UInt64> = Set(stopwordList.split(separator: " ").map { hash(String($0)) })

    private static let stopwordList = """
        a about above after again against all also am an and any are as at be because been before being below \
        between both but by can could did do does doing down during each few for from further had has have having \
        he her here hers herself him himself his how i if in into is it its itself just me more most my myself no \
        nor not now of off on once only or other our ours ourselves out over own same she should so some such than \
        that the their theirs them themselves then there these they this those through to too under until up very \
        was we were what when where which while who whom why will with would you your yours yourself yourselves \
        may might must shall one two use used using also however thus within without via per etc e g ie \
        der die das den dem des ein eine einer eines einem einen und oder aber auch als am an auf aus bei bis da \
        dass durch für gegen hat haben hatte ich ihr ist im in ins mit nach nicht noch nur ob sich sie sind so \
        über um uns unter vom von vor war waren was wenn werden wie wir wird wo zu zum zur es er man mehr sehr \
        kann können muss soll dieser diese dieses doch schon dann denn hier \
        le la les un une des du de et ou mais en dans sur pour par avec au aux ce cette ces est sont été être \
        qui que quoi ne pas plus il elle ils elles nous vous je tu se son sa ses leur leurs \
        el los las del y o pero en con por para es son fue ser que no lo al una unos unas su sus como más \
        的 了 是 在 和 也 有 我 他 她 它 这 那 就 不 都 一 个 们 到 说 要 会 着 为 与 及 等 而 之 其 或 被 把 从 对
        """
}
