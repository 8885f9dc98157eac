// The ```swift blocks of README.md, verbatim (DocSnippetsTests checks it), each in the context a reader gives it.
// A block that begins with imports sits in a file with exactly those imports, so a missing one fails to compile.
import AliyunOSS
import Foundation
import OSSLocalServer

// MARK: The local OSS server

func localServerInTests() async throws {
    try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["my-bucket"])) { server in
        let credentials = OSSStaticCredentialProvider(
            accessKeyId: server.credentials.accessKeyId, accessKeySecret: server.credentials.accessKeySecret)
        try await withOSSClient(endpoint: server.endpoint, credentialProvider: credentials) { client in
            let put = OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "hello.txt", data: Data("hello".utf8))
            _ = try await client.putObject(put)
            // ... the code under test, against a real server and no cloud account
        }
    }
}
