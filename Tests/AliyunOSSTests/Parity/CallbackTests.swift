import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// Upload callbacks, end to end: the SDK sends the typed callback, the local server really POSTs it to a receiver
/// on 127.0.0.1 and relays the reply; failures are 203 `CallbackFailed` with the object stored.
@Suite struct CallbackTests {
    /// As OSS documents it: a JSON body's variables are replaced by JSON values (strings come quoted), so they stand
    /// unquoted in the template.
    static let jsonTemplate =
        #"{"bucket":${bucket},"object":${object},"etag":${etag},"size":${size},"mimeType":${mimeType},"user":${x:user}}"#

    @Test func putObjectJSONCallbackIsCalledAndRelayed() async throws {
        let reply = Data(#"{"accepted":true,"id":42}"#.utf8)
        try await withRecordingHTTPServer({ _ in .init(body: reply) }) { receiver in
            try await withParityServer { _, client in
                let data = Data(patternBytes(5000))
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "photos/ca\"t.jpg", data: data)
                request.callback = OSSCallback(
                    url: receiver.callbackURL, body: Self.jsonTemplate, bodyType: .json, host: "app.example.com",
                    variables: ["x:user": "alice \"a\""])
                let result = try await client.putObject(request)
                #expect(result.serverCallbackBody == reply)
                #expect(result.eTag != nil)
                let received = try #require(receiver.requests.first)
                #expect(receiver.requests.count == 1)
                #expect(received.method == "POST")
                #expect(received.uri == "/callback")
                #expect(received.headers["content-type"] == "application/json")
                #expect(received.headers["host"] == "app.example.com")
                let body = try #require(jsonObject(received.body), "not JSON: \(String(decoding: received.body, as: UTF8.self))")
                #expect(body["bucket"] as? String == "bkt")
                #expect(body["object"] as? String == "photos/ca\"t.jpg")
                #expect(body["etag"] as? String == result.eTag?.replacingOccurrences(of: "\"", with: ""))
                #expect((body["size"] as? NSNumber)?.intValue == 5000)
                #expect(body["mimeType"] as? String == "image/jpeg")
                #expect(body["user"] as? String == "alice \"a\"")
            }
        }
    }

    @Test func urlEncodedCallbackSubstitutesEncodedValues() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { _, client in
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "dir/a b&c=d ü.txt", data: Data("hi".utf8))
                request.callback = OSSCallback(
                    url: receiver.callbackURL,
                    body: "bucket=${bucket}&object=${object}&size=${size}&mime=${mimeType}&v=${x:var1}&keep=${unknown}",
                    variables: ["var1": "x&y z"])
                _ = try await client.putObject(request)
                let received = try #require(receiver.requests.first)
                #expect(received.headers["content-type"] == "application/x-www-form-urlencoded")
                let fields = formFields(received.body)
                #expect(fields["bucket"] == "bkt")
                #expect(fields["object"] == "dir/a b&c=d ü.txt")
                #expect(fields["size"] == "2")
                #expect(fields["mime"] == "text/plain")
                #expect(fields["v"] == "x&y z")
                #expect(fields["keep"] == "${unknown}")
            }
        }
    }

    @Test func failingCallbackIs203CallbackFailedWithTheObjectStored() async throws {
        try await withRecordingHTTPServer({ _ in .init(status: 500, body: Data("boom".utf8)) }) { receiver in
            try await withParityServer { _, client in
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb-fail.bin", data: Data("abc".utf8))
                request.callback = OSSCallback(url: receiver.callbackURL, body: "object=${object}")
                let thrown = await serverError { [request] in _ = try await client.putObject(request) }
                let error = try #require(thrown)
                #expect(error.statusCode == 203)
                #expect(error.code == "CallbackFailed")
                #expect(error.isCallbackFailed)
                #expect(!error.requestId.isEmpty)
                let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "cb-fail.bin"))
                #expect(error.eTag == head.eTag)
                #expect(receiver.requests.count == 1, "a 203 is not retried")
            }
        }
    }

    @Test func nonJSONReplyIsCallbackFailed() async throws {
        try await withRecordingHTTPServer({ _ in .init(contentType: "text/plain", body: Data("not json".utf8)) }) { receiver in
            try await withParityServer { _, client in
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb-text.bin", data: Data("abc".utf8))
                request.callback = OSSCallback(url: receiver.callbackURL, body: "object=${object}")
                let thrown = await serverError { [request] in _ = try await client.putObject(request) }
                let error = try #require(thrown)
                #expect(error.code == "CallbackFailed")
                #expect(error.message.contains("json"))
            }
        }
    }

    @Test func slowCallbackTimesOutAsCallbackFailed() async throws {
        try await withRecordingHTTPServer({ _ in .init(body: Data("{}".utf8), delay: .seconds(3)) }) { receiver in
            try await withParityServer(configureServer: { $0.callbackTimeout = .milliseconds(300) }) { _, client in
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb-slow.bin", data: Data("abc".utf8))
                request.callback = OSSCallback(url: receiver.callbackURL, body: "object=${object}")
                let thrown = await serverError { [request] in _ = try await client.putObject(request) }
                let error = try #require(thrown)
                #expect(error.statusCode == 203)
                #expect(error.code == "CallbackFailed")
                #expect(error.message.contains("in time"))
            }
        }
    }

    @Test func secondURLIsTriedWhenTheFirstFails() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { _, client in
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb-two.bin", data: Data("abc".utf8))
                // Port 1 on loopback refuses connections.
                request.callback = OSSCallback(
                    urls: ["http://127.0.0.1:1/cb", receiver.callbackURL], body: "object=${object}")
                let result = try await client.putObject(request)
                #expect(result.serverCallbackBody == Data(#"{"Status":"OK"}"#.utf8))
                #expect(receiver.requests.count == 1)
            }
        }
    }

    /// The local server calls back only loopback addresses: any other callback fails as an unreachable one does on
    /// OSS, with the object stored and 203 CallbackFailed.
    @Test func nonLoopbackCallbackFailsAfterStoring() async throws {
        try await withParityServer { _, client in
            var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb-remote.bin", data: Data("abc".utf8))
            request.callback = OSSCallback(url: "http://10.20.30.40:8080/cb", body: "object=${object}")
            let thrown = await serverError { [request] in _ = try await client.putObject(request) }
                let error = try #require(thrown)
            #expect(error.statusCode == 203)
            #expect(error.code == "CallbackFailed")
            #expect(error.message.contains("loopback"))
            let stored = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "cb-remote.bin"))
            #expect(stored.contentLength == 3)
        }
    }

    @Test func malformedCallbackHeaderIsInvalidArgument() async throws {
        try await withParityServer { _, client in
            var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cb-bad.bin", data: Data("abc".utf8))
            request.headers["x-oss-callback"] = "not base64!"
            let thrown = await serverError { [request] in _ = try await client.putObject(request) }
                let error = try #require(thrown)
            #expect(error.statusCode == 400)
            #expect(error.code == "InvalidArgument")
        }
    }

    @Test func invalidCallbacksAreRefusedByTheSDK() async throws {
        #expect(throws: OSSClientError.self) { try OSSCallback(urls: [], body: "a").headers() }
        #expect(throws: OSSClientError.self) { try OSSCallback(url: "http://127.0.0.1/cb", body: "").headers() }
        #expect(throws: OSSClientError.self) {
            try OSSCallback(url: "http://127.0.0.1/cb", body: "a", variables: ["x:User": "u"]).headers()
        }
        let headers = try OSSCallback(url: "http://127.0.0.1/cb", body: "a=${x:v}", variables: ["v": "1"]).headers()
        let varHeader = try #require(headers["x-oss-callback-var"])
        let vars = try #require(Data(base64Encoded: varHeader))
        #expect(jsonObject(vars)?["x:v"] as? String == "1")
    }

    @Test func completeMultipartUploadSendsTheCallback() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { _, client in
                let key = "mp/video.mp4"
                let initiated = try await client.initiateMultipartUpload(
                    OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: key))
                let part = try await client.uploadPart(
                    OSSUploadPartRequest(
                        bucketName: "bkt", objectKey: key, uploadId: initiated.uploadId, partNumber: 1,
                        source: .data(Data(patternBytes(1000)))))
                var complete = OSSCompleteMultipartUploadRequest(
                    bucketName: "bkt", objectKey: key, uploadId: initiated.uploadId,
                    parts: [OSSPartInfo(partNumber: 1, eTag: part.eTag)])
                complete.typedCallback = OSSCallback(url: receiver.callbackURL, body: Self.jsonTemplate, bodyType: .json)
                let result = try await client.completeMultipartUpload(complete)
                #expect(result.serverCallbackBody == Data(#"{"Status":"OK"}"#.utf8))
                let first = try #require(receiver.requests.first)
                let body = try #require(jsonObject(first.body))
                #expect(body["object"] as? String == key)
                #expect((body["size"] as? NSNumber)?.intValue == 1000)
                #expect(body["mimeType"] as? String == "video/mp4")
            }
        }
    }

    @Test func resumedUploadSendsTheRecordedCallback() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { server, client in
                let directory = try temporaryURL()
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let file = directory.appendingPathComponent("movie.bin")
                try Data(patternBytes(300_000)).write(to: file)
                let records = directory.appendingPathComponent("records").path
                // The first run's Complete is refused (not retryable), so the record stays.
                await server.addFault(
                    LocalOSSFaultRule(
                        operation: .completeMultipartUpload, action: .status(403, code: "AccessDenied"), times: 1))
                var first = OSSResumableUploadRequest(
                    bucketName: "bkt", objectKey: "resumed.bin", uploadingFileURL: file, partSize: 102_400,
                    recordDirectoryPath: records)
                first.callback = OSSCallback(url: receiver.callbackURL, body: #"{"object":${object}}"#, bodyType: .json)
                let failure = await serverError { [first] in _ = try await client.resumableUpload(first) }
                #expect(failure?.code == "AccessDenied")
                #expect(receiver.requests.isEmpty)
                // Resumed without a callback in the request (as the transfer manager does): the record's is sent.
                let second = OSSResumableUploadRequest(
                    bucketName: "bkt", objectKey: "resumed.bin", uploadingFileURL: file, partSize: 102_400,
                    recordDirectoryPath: records)
                let result = try await client.resumableUpload(second)
                #expect(result.callbackBody == Data(#"{"Status":"OK"}"#.utf8))
                #expect(result.resumedBytes > 0)
                let call = try #require(receiver.requests.first)
                let body = try #require(jsonObject(call.body))
                #expect(body["object"] as? String == "resumed.bin")
            }
        }
    }

    @Test func transferManagerResumeSendsTheRecordedCallback() async throws {
        try await withRecordingHTTPServer { receiver in
            try await withParityServer { server, client in
                let directory = try temporaryURL()
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let file = directory.appendingPathComponent("clip.mov")
                try Data(patternBytes(250_000)).write(to: file)
                let records = directory.appendingPathComponent("records").path
                await server.addFault(
                    LocalOSSFaultRule(
                        operation: .completeMultipartUpload, action: .status(403, code: "AccessDenied"), times: 1))
                var request = OSSResumableUploadRequest(
                    bucketName: "bkt", objectKey: "tm.mov", uploadingFileURL: file, partSize: 102_400,
                    recordDirectoryPath: records)
                request.callback = OSSCallback(
                    url: receiver.callbackURL, body: "object=${object}&size=${size}&mime=${mimeType}")
                _ = await serverError { [request] in _ = try await client.resumableUpload(request) }
                #expect(receiver.requests.isEmpty)
                let manager = OSSTransferManager(client: client, recordDirectoryPath: records)
                let outcomes = try await manager.resumeAll()
                #expect(outcomes.count == 1)
                guard case .success(.uploaded(let result))? = outcomes.values.first else {
                    Issue.record("the resumed upload did not finish: \(outcomes)")
                    return
                }
                #expect(result.callbackBody == Data(#"{"Status":"OK"}"#.utf8))
                let call = try #require(receiver.requests.first)
                #expect(formFields(call.body) == ["object": "tm.mov", "size": "250000", "mime": "video/quicktime"])
            }
        }
    }

    @Test func hostileCallbackParametersArePreciseErrors() async throws {
        func encoded(_ json: String) -> String { Data(json.utf8).base64EncodedString() }
        let cases: [(callback: String, vars: String?)] = [
            (encoded(#"{"callbackUrl":42,"callbackBody":"a"}"#), nil),
            (encoded(#"{"callbackUrl":"http://127.0.0.1/cb","callbackBody":"a","callbackBodyType":"text/xml"}"#), nil),
            (encoded(#"{"callbackUrl":"http://127.0.0.1/1;http://127.0.0.1/2;http://127.0.0.1/3;http://127.0.0.1/4;http://127.0.0.1/5;http://127.0.0.1/6","callbackBody":"a"}"#), nil),
            (encoded(#"{"callbackUrl":"http://127.0.0.1:99999/cb","callbackBody":"a"}"#), nil),
            (encoded(#"{"callbackUrl":"ftp://127.0.0.1/cb","callbackBody":"a"}"#), nil),
            (encoded(#"{"callbackUrl":"http://[::1/cb","callbackBody":"a"}"#), nil),
            (encoded(#"["not","an","object"]"#), nil),
            (encoded(#"{"callbackUrl":"http://127.0.0.1/cb","callbackBody":"a"}"#), encoded(#"{"x:Upper":"v"}"#)),
        ]
        try await withParityServer { _, client in
            for (index, item) in cases.enumerated() {
                var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "hostile-\(index)", data: Data("x".utf8))
                request.headers["x-oss-callback"] = item.callback
                if let vars = item.vars { request.headers["x-oss-callback-var"] = vars }
                let error = await serverError { [request] in _ = try await client.putObject(request) }
                #expect(error?.statusCode == 400, "case \(index): \(String(describing: error))")
                let missing = await serverError {
                    _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "hostile-\(index)"))
                }
                #expect(missing?.statusCode == 404, "case \(index) stored the object")
            }
        }
    }
}
