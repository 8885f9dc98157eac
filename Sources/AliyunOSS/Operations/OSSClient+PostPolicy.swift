#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// Signs `policy` for a browser form upload (PostObject) to `bucket`, with the client's credentials and
    /// signature version.
    ///
    /// The policy is bound to the bucket (`{"bucket": …}` is put first unless the policy names a bucket), and with
    /// V4 it gains the exact conditions on `x-oss-signature-version`, `x-oss-credential`, `x-oss-date` (and
    /// `x-oss-security-token` with STS) that V4 POST signing requires. The form's fields are the values the policy
    /// requires exactly, then the signature fields; the browser adds the fields the policy leaves open (a key
    /// under a prefix, a content type) and the file, last.
    ///
    /// `signedAt` is the signing time (V4's `x-oss-date`); by default the client's clock, corrected for a skew the
    /// server reported.
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` for an invalid bucket name, a policy that has already
    ///   expired or a content-length range below zero; `.signFailed` when the credentials cannot be had, or with a
    ///   custom signer (which signs requests, not policies).
    public func postPolicyForm(bucket: String, policy: OSSPostPolicy, signedAt: Date? = nil) async throws
        -> OSSPostPolicyForm
    {
        try OSSRequestBuilder.validateBucketName(bucket)
        let now: Date
        if let signedAt { now = signedAt } else { now = await clock.now() }
        guard policy.expiration > now else {
            throw OSSClientError.invalidArgument("the POST policy expires at or before the signing time")
        }
        for condition in policy.conditions {
            if case .lengthRange(let low, _) = condition.storage, low < 0 {
                throw OSSClientError.invalidArgument("a content-length-range cannot start below zero")
            }
        }
        if credentialProvider is OSSCustomSignerCredentialProvider {
            throw OSSClientError(.signFailed, "a custom signer cannot sign a POST policy")
        }
        let credentials = try await presigningCredentials()
        guard !credentials.accessKeyId.isEmpty, !credentials.accessKeySecret.isEmpty else {
            throw OSSClientError(.signFailed, "cannot sign a POST policy without an access key")
        }
        var signed = policy
        if !signed.conditions.contains(where: { $0.fieldName == "bucket" }) {
            signed.conditions.insert(.bucket(bucket), at: 0)
        }
        var authFields: [OSSPostPolicyForm.Field] = []
        switch configuration.signatureVersion {
        case .v1:
            let document = signed.document()
            let encoded = OSSPostPolicySignature.encodePolicy(document)
            authFields.append(.init(name: "OSSAccessKeyId", value: credentials.accessKeyId))
            authFields.append(.init(name: "policy", value: encoded))
            authFields.append(
                .init(name: "Signature", value: OSSPostPolicySignature.v1(policy: encoded, secret: credentials.accessKeySecret)))
            if let token = credentials.securityToken, !token.isEmpty {
                authFields.append(.init(name: "x-oss-security-token", value: token))
            }
            return OSSPostPolicyForm(
                url: builder.urlWithoutQuery(bucket: bucket, key: ""), policyDocument: document,
                fields: Self.requiredFields(of: policy) + authFields)
        case .v4:
            guard let region = configuration.region, !region.isEmpty else {
                throw OSSClientError(.signFailed, "signature V4 needs a region in the client configuration")
            }
            let v4 = OSSPostPolicySignature.v4Fields(credentials: credentials, date: now, region: region)
            for (name, value) in v4.pairs { signed.conditions.append(.exact(name, value)) }
            let document = signed.document()
            let encoded = OSSPostPolicySignature.encodePolicy(document)
            authFields.append(.init(name: "policy", value: encoded))
            for (name, value) in v4.pairs { authFields.append(.init(name: name, value: value)) }
            authFields.append(
                .init(
                    name: "x-oss-signature",
                    value: OSSPostPolicySignature.v4(
                        policy: encoded, secret: credentials.accessKeySecret, day: String(v4.date.prefix(8)),
                        region: region)))
            return OSSPostPolicyForm(
                url: builder.urlWithoutQuery(bucket: bucket, key: ""), policyDocument: document,
                fields: Self.requiredFields(of: policy) + authFields)
        }
    }

    /// The fields a policy requires exactly (every field but `bucket`, which is not a form field).
    static func requiredFields(of policy: OSSPostPolicy) -> [OSSPostPolicyForm.Field] {
        var fields: [OSSPostPolicyForm.Field] = []
        for condition in policy.conditions where condition.fieldName != "bucket" {
            guard let value = condition.requiredValue,
                !fields.contains(where: { $0.name.lowercased() == condition.fieldName })
            else { continue }
            fields.append(.init(name: condition.fieldName, value: value))
        }
        return fields
    }
}
