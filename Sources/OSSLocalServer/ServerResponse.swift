import NIOCore
import NIOHTTP1

/// A reply built by a handler, written by the connection loop.
struct ServerResponse: Sendable {
    enum Body: Sendable {
        case empty
        case buffer(ByteBuffer)
        /// `length` bytes of the file at `path` starting at `offset`.
        case file(path: String, offset: Int64, length: Int64)
    }

    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: Body

    init(status: HTTPResponseStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func xml(_ text: String, status: HTTPResponseStatus = .ok) -> ServerResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/xml")
        return ServerResponse(status: status, headers: headers, body: .buffer(ByteBuffer(string: text)))
    }

    static func json(_ text: String, status: HTTPResponseStatus = .ok) -> ServerResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return ServerResponse(status: status, headers: headers, body: .buffer(ByteBuffer(string: text)))
    }

    /// The number of body bytes this response carries.
    var bodyLength: Int64 {
        switch body {
        case .empty: return 0
        case .buffer(let b): return Int64(b.readableBytes)
        case .file(_, _, let length): return length
        }
    }
}
