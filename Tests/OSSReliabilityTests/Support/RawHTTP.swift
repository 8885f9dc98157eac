import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parsed raw HTTP/1.1 response.
struct RawHTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// Sends bytes over a fresh TCP connection and reads until the peer closes (or a timeout), off the Swift
/// concurrency pool (blocking sockets run on a Dispatch queue so the in-process server never starves).
enum RawHTTP {
    enum Failure: Error, CustomStringConvertible {
        case socket(String)
        var description: String {
            switch self {
            case .socket(let message): return message
            }
        }
    }

    /// `halfCloseAfterMilliseconds`: for fuzz inputs that may be cut short, half-close the connection when no
    /// reply came within this time (the server then answers or closes); `nil` for well-formed requests.
    static func exchange(
        port: Int, request: [UInt8], timeoutSeconds: Int = 90, halfCloseAfterMilliseconds: Int? = nil
    ) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try blockingExchange(port: port, request: request, timeout: timeoutSeconds, halfCloseAfter: halfCloseAfterMilliseconds)
                })
            }
        }
    }

    private static func blockingExchange(port: Int, request: [UInt8], timeout: Int, halfCloseAfter: Int?) throws -> [UInt8] {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.socket("socket() failed: \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure.socket("connect() failed: \(errno)") }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // The server may close early on a malformed request; read what it said.
            sent += n
        }
        // Wait briefly for a reply; a request cut short (mid-headers or mid-body) legitimately makes the server
        // wait for more, so then half-close our side and wait for the server to answer or close.
        var halfClosed = halfCloseAfter == nil
        if let milliseconds = halfCloseAfter {
            var short = timeval(tv_sec: milliseconds / 1000, tv_usec: .init((milliseconds % 1000) * 1000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &short, socklen_t(MemoryLayout<timeval>.size))
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n > 0 {
                received += buffer[0..<n]
                if received.count > 64 << 20 { break }
            } else if n == 0 {
                break
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    if !halfClosed {
                        halfClosed = true
                        shutdown(fd, Int32(SHUT_WR))
                        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                        continue
                    }
                    throw Failure.socket("no reply and no close within \(timeout) s")
                }
                break  // ECONNRESET: the server dropped a malformed request.
            }
        }
        return received
    }

    /// Parses the first response in `bytes`; nil when there is none (the server closed without replying).
    static func parse(_ bytes: [UInt8]) -> RawHTTPResponse? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var headerEnd: Int?
        for i in 0...(bytes.count - 4) where Array(bytes[i..<(i + 4)]) == separator {
            headerEnd = i
            break
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: bytes[0..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(headerEnd + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), length <= body.count {
            body = Array(body.prefix(length))
        }
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }
}
