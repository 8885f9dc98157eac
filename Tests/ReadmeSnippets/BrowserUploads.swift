// README.md's "Uploads from browsers" block, verbatim (DocSnippetsTests checks it).
import AliyunOSS
import Foundation

func browserUploads(_ client: OSSClient, uploadId: String) async throws {
    let form = try await client.postPolicyForm(bucket: "my-bucket", policy: OSSPostPolicy(
        expiration: Date().addingTimeInterval(600),
        conditions: [.keyPrefix("users/alice/"), .contentLengthRange(1...20 << 20), .contentType(.startsWith("image/"))]))
    print(form.url, form.fields)   // the page posts these fields, then the file, last
    let part = try await client.presignUploadPart(bucket: "my-bucket", key: "users/alice/movie.mp4",
                                                  uploadId: uploadId, partNumber: 1, expiration: 3600)
    print(part.method, part.url, part.headers)   // PUT this part's bytes, with exactly these headers
}
