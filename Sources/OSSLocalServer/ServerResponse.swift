import NIOCore
import NIOHTTP1

/// A reply built by a handler, written by the connection loop.
struct ServerResponse: Sendable {
    enum Body: Sendable {
        case empty
        case buffer(ByteBuffer)
        /// `length` bytes of the file at `path` starting at `offset`.
        case file(path: String, offset: Int64, length: Int64)
        /// The segments' bytes in order (an object kept as several files, see ``ObjectStore/objectSegments``).
        case segments([FileSegment])

        /// The same body as a list of file segments, or nil if it is not read from files.
        var fileSegments: [FileSegment]? {
            switch self {
            case .file(let path, let offset, let length): return [FileSegment(path: path, offset: offset, length: length)]
            case .segments(let segments): return segments
            case .empty, .buffer: return nil
            }
        }
    }

    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: Body
    /// Whether the body goes out gzip-encoded (``GzipEncoder``) and chunked, without Content-Length.
    var gzip = false

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
        case .segments(let segments): return segments.reduce(0) { $0 + $1.length }
        }
    }
}
