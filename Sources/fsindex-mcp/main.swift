import Agent

// `fsindex-mcp`: the index as a tool for language-model agents (Sources/Agent). The installed
// package has no such file: there `fsindex-mcp` is a link to the multi-call `fsindex`.
await FSIndexMCP.main()
