import AliyunOSS
import NIOConcurrencyHelpers
import Testing

/// What the response-decoding closure throws is not a network error: it is neither mapped to one nor retried.
@Suite("decode failures")
struct DecodeFailureRetryTests {
    struct MalformedAnswer: Error {}

    /// Runs a request whose decode closure throws `thrown`; returns the error and how often decode ran.
    private func decodeThrowing(_ thrown: any Error) async throws -> (OSSClientError?, Int) {
        try await withServerAndClient { _, client in
            let calls = NIOLockedValueBox(0)
            let error = await thrownClientError {
                _ = try await client.invoke(OSSOperation(name: "ListBuckets", method: "GET")) { _ -> Int in
                    calls.withLockedValue { $0 += 1 }
                    throw thrown
                }
            }
            return (error, calls.withLockedValue { $0 })
        }
    }

    @Test func aDecodeErrorIsThrownOnceAsExceptionCaught() async throws {
        let (error, calls) = try await decodeThrowing(MalformedAnswer())
        #expect(error?.code == .exceptionCaught)
        #expect(error?.underlying is MalformedAnswer)
        #expect(calls == 1, "a decode failure must not be retried")
    }

    @Test func aClientErrorFromDecodeKeepsItsCodeAndIsNotRetried() async throws {
        let (error, calls) = try await decodeThrowing(OSSClientError(.invalidCRC, "checked in decode"))
        #expect(error?.code == .invalidCRC)
        #expect(calls == 1)
    }
}
