import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// The iOS `callbackParam` / `callbackVar` dictionaries, encoded by the SDK, on put, complete and presign: the
/// local server really calls the callback.
@Suite struct CallbackDictionaryTests {
    static func parameters(_ url: String) -> [String: String] {
        ["callbackUrl": url, "callbackBody": "object=${object}&who=${x:who}", "callbackBodyType": "application/x-www-form-urlencoded"]
    }

    @Test func putTakesTheIOSDictionaries() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { _, client in
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb.txt", data: Data("hi".utf8))
                request.callbackParam = Self.parameters(receiver.callbackURL)
                request.callbackVar = ["x:who": "alice"]
                let result = try await client.putObject(request)
                #expect(result.serverCallbackBody != nil)
                let received = try #require(receiver.requests.first)
                #expect(formFields(received.body) == ["object": "cb.txt", "who": "alice"])
            }
        }
    }

    /// The raw pre-encoded strings are gone: `callbackParam` / `callbackVar` are dictionaries, as on iOS.
    @Test func completeTakesTheIOSDictionaries() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { _, client in
                let result = try await uploadOnePart(
                    client, OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "mp.txt")
                ) {
                    $0.callbackParam = Self.parameters(receiver.callbackURL)
                    $0.callbackVar = ["x:who": "bob"]
                }
                #expect(result.serverCallbackBody != nil)
                let received = try #require(receiver.requests.first)
                #expect(formFields(received.body) == ["object": "mp.txt", "who": "bob"])
            }
        }
    }

    @Test func variablesWithoutParametersAreAnInvalidArgument() async throws {
        try await withParityServer { server, client in
            var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "v.txt", data: Data("v".utf8))
            request.callbackVar = ["x:who": "alice"]
            #expect(await clientErrorCode { _ = try await client.putObject(request) } == .invalidArgument)
            #expect(await server.stats()[.putObject].requests == 0)
        }
    }

    /// The presigned URL carries the dictionaries as the signed `callback` / `callback-var` query parameters.
    @Test func presignEncodesTheDictionaries() async throws {
        try await withParityServer { _, client in
            let url = try await client.presignConstrainURL(
                bucket: "bkt", key: "p.txt", expiration: 600, callbackParam: Self.parameters("http://127.0.0.1:9/cb"),
                callbackVar: ["x:who": "carol"])
            let items = try #require(URLComponents(string: url)?.queryItems)
            func decoded(_ name: String) throws -> [String: String]? {
                let value = try #require(items.first { $0.name == name }?.value)
                return try JSONDecoder().decode([String: String].self, from: #require(Data(base64Encoded: value)))
            }
            #expect(try decoded("callback") == Self.parameters("http://127.0.0.1:9/cb"))
            #expect(try decoded("callback-var") == ["x:who": "carol"])
            #expect(items.contains { $0.name == "Signature" })
        }
    }
}
