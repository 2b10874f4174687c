// TEMPORARY until branch `me` merges: delete this file then.
import Configuration
extension Settings {
    struct AgentTemp { var scopes: [String] = []; var maxResults = 20; var format = "full"; var guidance = "complete"; var me: Identity? = nil }
    var agent: AgentTemp { AgentTemp() }
}
