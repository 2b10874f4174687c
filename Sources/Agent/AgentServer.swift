import Attributes
import Controlling
import Foundation
import Indexing
import Logging
import MCP
import SystemPackage
import Querying

/// The MCP side: tools, resources and subscriptions over stdio, routed to an `AgentSession`.
///
/// Everything a call can get wrong is a tool error (`isError`) with the session's message,
/// never a protocol error: a model reads tool errors and can correct itself. Stdout belongs to
/// the protocol; logs go to stderr.
package enum AgentServer {
    package static func run(_ session: AgentSession, version: String, logger: Logger) async throws {
        let server = Server(name: "fsindex-mcp", version: version, title: "FSIndex",
                            instructions: "Search the user's indexed files in \(session.options.scopes.display.joined(separator: ", ")). Call describe first to see what the folders hold and which query words work.",
                            capabilities: .init(resources: .init(subscribe: true, listChanged: false), tools: .init(listChanged: false)))
        let subscriptions = ResourceSubscriptions(location: session.location, logger: logger)

        await server.withMethodHandler(ListTools.self) { _ in .init(tools: session.tools) }

        await server.withMethodHandler(CallTool.self) { params in
            let progress: ProgressReporter = params._meta?.progressToken.map { token in
                ProgressReporter { done, total, message in
                    try? await server.notify(ProgressNotification.message(.init(progressToken: token, progress: done, total: total, message: message)))
                }
            } ?? .none
            do {
                let reply = try await session.call(params.name, arguments: params.arguments, progress: progress)
                return .init(content: [.text(text: reply.text, annotations: nil, _meta: nil)], structuredContent: Optional<Value>.some(reply.structured), isError: false)
            } catch {
                logger.debug("tool \(params.name): \(error)")
                return .init(content: [.text(text: "\(error)", annotations: nil, _meta: nil)], isError: true)
            }
        }

        // Each result's file is a resource: the latest search's are listed; any file in the
        // scopes that the index holds can be read and subscribed to.
        await server.withMethodHandler(ListResources.self) { _ in
            .init(resources: session.latestItems.map { item in
                Resource(name: ReplyValues.name(item.path), uri: ResourceURI.uri(item.path),
                         title: item.attributes.string(.title), description: item.attributes.string(.textContentSummary),
                         mimeType: "text/plain")
            })
        }
        await server.withMethodHandler(ReadResource.self) { params in
            do {
                let (path, text) = try session.storedText(uri: params.uri)
                return .init(contents: [.text(text, uri: ResourceURI.uri(path), mimeType: "text/plain")])
            } catch {
                throw MCPError.invalidParams("\(error)")
            }
        }
        await server.withMethodHandler(ResourceSubscribe.self) { params in
            do {
                let path = try ResourceURI.path(params.uri)
                try session.available(path)
                try await subscriptions.add(path, uri: params.uri) { uri in
                    try? await server.notify(ResourceUpdatedNotification.message(.init(uri: uri)))
                }
            } catch {
                throw MCPError.invalidParams("\(error)")
            }
            return Empty()
        }
        await server.withMethodHandler(ResourceUnsubscribe.self) { params in
            await subscriptions.remove(uri: params.uri)
            return Empty()
        }

        try await server.start(transport: StdioLineTransport(logger: logger))
        await server.waitUntilCompleted()
        await subscriptions.stop()
    }
}

extension AgentSession {
    /// The stored text of a file in the scopes (a resource's contents).
    func storedText(uri: String) throws(AgentError) -> (path: [UInt8], text: String) {
        let path = try ResourceURI.path(uri)
        try available(path)
        let item: SearchableItem?
        do { item = try pipeline().engine.item(ItemIdentifier(bytes: path)) } catch { throw .failed(error) }
        guard let item else { throw .notAvailable(path: ReplyValues.path(path), reason: "is not in the index") }
        return (path, item.attributes.textContent ?? "")
    }
}

/// The files a client subscribed to, and fsindexd's item-change feed that tells when one
/// changes (our `searchableItemsDidUpdate`): a change, a removal or a new summary of the file
/// (or of an item inside it) sends `notifications/resources/updated`.
actor ResourceSubscriptions {
    let location: IndexLocation
    let logger: Logger
    private var uris: [[UInt8]: Set<String>] = [:]
    private var notify: (@Sendable (String) async -> Void)?
    private var feed: Task<Void, Never>?
    private var client: ControlClient?

    init(location: IndexLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    func add(_ path: [UInt8], uri: String, notify: @escaping @Sendable (String) async -> Void) throws(AgentError) {
        self.notify = notify
        if feed == nil {
            // Without fsindexd nothing would ever be told: say so rather than accept in silence.
            let client: ControlClient
            let changes: AsyncStream<ItemChanges>
            do {
                client = try ControlClient.connect(ControlLocation.forIndex(directory: location.directory))
                changes = try client.subscribe()
            } catch {
                throw .notAvailable(path: uri, reason: "cannot be followed: subscriptions need fsindexd running for the index at \(location.directory.string) (\(error))")
            }
            self.client = client
            feed = Task { [weak self] in
                for await change in changes { await self?.deliver(change) }
                await self?.ended()
            }
        }
        uris[path, default: []].insert(uri)
    }

    func remove(uri: String) {
        for (path, set) in uris where set.contains(uri) {
            var s = set
            s.remove(uri)
            uris[path] = s.isEmpty ? nil : s
        }
    }

    func deliver(_ change: ItemChanges) async {
        guard let notify else { return }
        var told = Set<String>()
        // A new summary is a change of the resource too (Core Spotlight's summarization flag),
        // and so is a new priority (its update listener).
        for id in change.removed + change.updated + change.summarized + change.prioritized {
            let (file, _) = ItemIdentifier.split(id)
            for uri in uris[file] ?? [] where told.insert(uri).inserted { await notify(uri) }
        }
    }

    func ended() {
        logger.warning("fsindexd's item-change feed ended; resource subscriptions resume with the next resources/subscribe")
        feed = nil
        client?.close()
        client = nil
    }

    func stop() {
        feed?.cancel()
        client?.close()
        client = nil
    }
}
