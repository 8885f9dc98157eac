import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Testing

@testable import OSSLocalServer

/// The accept loop used before macOS 14 / iOS 17 (no `withDiscardingTaskGroup` there; the package supports macOS 13
/// and iOS 16): it serves every connection, reaps the ones that ended, and returns once the listener closes.
@Suite struct ListenerTests {
    actor Served {
        var count = 0
        func add() { count += 1 }
    }

    @Test func theDrainingAcceptLoopServesEveryConnectionAndEnds() async throws {
        let listener = try await HTTPListener.bind(host: "127.0.0.1", port: 0)
        let port = try #require(listener.channel.localAddress?.port)
        let served = Served()
        let loop = Task {
            _ = try? await listener.executeThenClose { inbound in
                await HTTPListener.serveDraining(inbound) { connection in
                    try? await connection.executeThenClose { requests, responses in
                        for try await part in requests {
                            guard case .end = part else { continue }
                            var headers = HTTPHeaders()
                            headers.add(name: "Content-Length", value: "2")
                            headers.add(name: "Connection", value: "close")
                            try await responses.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
                            try await responses.write(.body(.byteBuffer(ByteBuffer(string: "ok"))))
                            try await responses.write(.end(nil))
                            break
                        }
                    }
                    await served.add()
                }
            }
        }
        for _ in 0..<40 {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), timeout: .seconds(30))
            #expect(response.status == .ok)
            _ = try await response.body.collect(upTo: 1 << 10)
        }
        try await listener.channel.close()
        await loop.value
        #expect(await served.count == 40)
    }
}
