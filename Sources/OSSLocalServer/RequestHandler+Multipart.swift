import Crypto
import NIOCore
import NIOHTTP1
import OSSCRC64
import OSSSigning
import OSSXML

import Foundation

extension RequestHandler {
    /// The smallest size of every part but the last (100 KB).
    static let minimumPartSize: Int64 = 102_400

    func requireUploadId(_ context: RequestContext) throws(LocalOSSError) -> String {
        guard let id = context.query["uploadId"], !id.isEmpty else {
            throw .invalidArgument("uploadId is required.", name: "uploadId")
        }
        guard ObjectStore.isValidUploadId(id) else { throw .noSuchUpload(id) }
        return id
    }

    /// `partNumber`: 1 to 10000.
    func requirePartNumber(_ context: RequestContext) throws(LocalOSSError) -> Int {
        let numberText = context.query["partNumber"] ?? ""
        guard let partNumber = Int(numberText), partNumber >= 1, partNumber <= 10_000 else {
            throw .invalidArgument(
                "Part number must be an integer between 1 and 10000, inclusive.", name: "partNumber", value: numberText)
        }
        return partNumber
    }

    func initiateMultipartUpload(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        var record = UploadRecord(
            uploadId: RequestID.uploadId(), key: key, initiated: Int64(context.now.timeIntervalSince1970),
            contentType: context.header("content-type") ?? "application/octet-stream",
            userMetadata: context.userMetadata, headers: storedHeaders(context),
            extra: try await requestedExtra(context, bucket: bucket))
        if context.query["sequential"] != nil { record.sequential = true }
        let created = try await store.initiateUpload(bucket, record: record)
        let encode = context.encodingTypeURL
        var w = OSSXMLWriter()
        w.open("InitiateMultipartUploadResult")
        w.element("Bucket", bucket)
        w.element("Key", urlEncoded(key, encode))
        w.element("UploadId", created.uploadId)
        if encode { w.element("EncodingType", "url") }
        w.close("InitiateMultipartUploadResult")
        var response = ServerResponse.xml(w.output)
        created.extra?.addEncryptionHeaders(&response.headers)
        return response
    }

    /// Records the part whose bytes (described by `digest`) are in `tempPath` as part `partNumber` of the upload,
    /// for UploadPart and UploadPartCopy alike.
    func commitPart(
        _ partNumber: Int, of uploadId: String, bucket: String, key: String, digest: BodyDigest, tempPath: String,
        context: RequestContext
    ) async throws -> PartRecord {
        let part = PartRecord(
            partNumber: partNumber, size: digest.size, md5Hex: digest.md5Hex, crc64: digest.crc64,
            lastModified: Int64(context.now.timeIntervalSince1970), dataFile: "")
        try await store.commitPart(bucket, key: key, uploadId: uploadId, part: part, tempPath: tempPath)
        return part
    }

    func uploadPart(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let uploadId = try requireUploadId(context)
        let partNumber = try requirePartNumber(context)
        try rejectEncryptionHeaders(context)
        let upload = try await store.upload(bucket, key: key, uploadId: uploadId)
        let temp = store.newTempPath()
        let digest = try await BodySink.receive(reader, to: temp, computeSHA256: declaresPayloadHash(context))
        do { try verifyContentMD5(context, digest: digest) } catch {
            FileIO.remove(temp)
            throw error
        }
        let part = try await commitPart(
            partNumber, of: uploadId, bucket: bucket, key: key, digest: digest, tempPath: temp, context: context)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: part.etag)
        headers.add(name: "x-oss-hash-crc64ecma", value: String(part.crc64))
        headers.add(name: "Content-MD5", value: digest.md5Base64)
        upload.record.extra?.addEncryptionHeaders(&headers)
        return ServerResponse(status: .ok, headers: headers)
    }

    func listParts(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let uploadId = try requireUploadId(context)
        let maxParts = try parseLimit(context.query["max-parts"], name: "max-parts", defaultValue: 1000)
        let markerText = context.query["part-number-marker"] ?? ""
        var marker = 0
        if !markerText.isEmpty {
            guard let m = Int(markerText), m >= 0 else {
                throw LocalOSSError.invalidArgument(
                    "part-number-marker must be a non-negative integer.", name: "part-number-marker", value: markerText)
            }
            marker = m
        }
        let upload = try await store.upload(bucket, key: key, uploadId: uploadId)
        let all = upload.parts.values.filter { $0.partNumber > marker }.sorted { $0.partNumber < $1.partNumber }
        let page = Array(all.prefix(maxParts))
        let truncated = all.count > page.count
        let encode = context.encodingTypeURL
        var w = OSSXMLWriter()
        w.open("ListPartsResult")
        w.element("Bucket", bucket)
        w.element("Key", urlEncoded(key, encode))
        w.element("UploadId", uploadId)
        if encode { w.element("EncodingType", "url") }
        w.element("PartNumberMarker", String(marker))
        w.element("NextPartNumberMarker", String(page.last?.partNumber ?? marker))
        w.element("MaxParts", String(maxParts))
        w.element("IsTruncated", truncated ? "true" : "false")
        for part in page {
            w.open("Part")
            w.element("PartNumber", String(part.partNumber))
            w.element("LastModified", isoDate(part.lastModified))
            w.element("ETag", part.etag)
            w.element("HashCrc64ecma", String(part.crc64))
            w.element("Size", String(part.size))
            w.close("Part")
        }
        Self.writeClientEncryption(of: upload.record, to: &w)
        w.close("ListPartsResult")
        return .xml(w.output)
    }

    /// The client-side encryption envelope given at InitiateMultipartUpload, as OSS repeats it in ListParts (the
    /// official encryption clients rebuild a resumed upload's content cipher from it): each element only when its
    /// `x-oss-meta-client-side-encryption-*` header was given.
    static func writeClientEncryption(of upload: UploadRecord, to w: inout OSSXMLWriter) {
        let elements = [
            ("ClientEncryptionKey", "key"), ("ClientEncryptionStart", "start"), ("ClientEncryptionCekAlg", "cek-alg"),
            ("ClientEncryptionWrapAlg", "wrap-alg"), ("ClientEncryptionDataSize", "data-size"),
            ("ClientEncryptionPartSize", "part-size"),
        ]
        for (element, suffix) in elements {
            if let value = upload.userMetadata["x-oss-meta-client-side-encryption-\(suffix)"] {
                w.element(element, value)
            }
        }
    }

    func abortMultipartUpload(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let uploadId = try requireUploadId(context)
        try await store.removeUpload(bucket, key: key, uploadId: uploadId)
        return ServerResponse(status: .noContent)
    }

    func completeMultipartUpload(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let uploadId = try requireUploadId(context)
        let callback = try CallbackRequest.parse(context)
        try rejectEncryptionHeaders(context)
        let body = try await reader.collect(limit: 4 << 20)
        try verifyContentMD5(context, body: body)
        let upload = try await store.upload(bucket, key: key, uploadId: uploadId)
        try await refuseForbiddenOverwrite(context, bucket: bucket, key: key)
        var chosen: [PartRecord] = []
        if context.header("x-oss-complete-all")?.lowercased() == "yes" {
            guard body.readableBytes == 0 else {
                throw LocalOSSError.invalidArgument("With x-oss-complete-all: yes the request body must be empty.")
            }
            chosen = upload.parts.values.sorted { $0.partNumber < $1.partNumber }
        } else {
            let root: OSSXMLNode
            do { root = try OSSXMLParser.parse(body.readableBytesView, root: "CompleteMultipartUpload") } catch {
                throw LocalOSSError.malformedXML("\(error)")
            }
            let listed = root.children("Part")
            guard !listed.isEmpty else { throw LocalOSSError.malformedXML("no Part elements") }
            var previous = 0
            for item in listed {
                guard let numberText = item.string("PartNumber"), let number = Int(numberText.trimmingWhitespace()),
                    let etag = item.string("ETag")
                else {
                    throw LocalOSSError.malformedXML("each Part needs PartNumber and ETag")
                }
                guard number > previous else {
                    throw LocalOSSError(
                        400, "InvalidPartOrder",
                        "The list of parts was not in ascending order. The parts list must be specified in order by part number.")
                }
                previous = number
                let wanted = ObjectConditions.unquote(etag.trimmingWhitespace()).uppercased()
                guard let part = upload.parts[number], part.md5Hex == wanted else {
                    throw LocalOSSError(
                        400, "InvalidPart",
                        "One or more of the specified parts could not be found or the specified entity tag might not have matched the part's entity tag.",
                        fields: [("PartNumber", String(number)), ("ETag", etag)])
                }
                chosen.append(part)
            }
        }
        for part in chosen.dropLast() where part.size < Self.minimumPartSize {
            throw LocalOSSError(
                400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size.",
                fields: [("PartNumber", String(part.partNumber)), ("ProposedSize", String(part.size)),
                         ("MinSizeAllowed", String(Self.minimumPartSize))])
        }
        var md5s: [UInt8] = []
        for part in chosen { md5s += Self.hexBytes(part.md5Hex) }
        let etagHex = Insecure.MD5.hash(data: md5s).map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }
            .joined()
        let crc = CRC64.combine(parts: chosen.map { (crc: $0.crc64, length: UInt64($0.size)) })
        let size = chosen.reduce(Int64(0)) { $0 + $1.size }
        let record = ObjectRecord(
            key: key, size: size, etag: "\"\(etagHex)-\(chosen.count)\"", crc64: crc,
            lastModified: Int64(context.now.timeIntervalSince1970), contentType: upload.record.contentType,
            contentMD5: upload.record.sequential == true
                ? Data(try await FileIO.md5(of: chosen.map {
                    FileIO.Piece(path: store.partDataPath(bucket, uploadId, $0), offset: 0, length: $0.size)
                })).base64EncodedString() : nil,
            userMetadata: upload.record.userMetadata, headers: upload.record.headers,
            objectType: "Multipart", dataFile: "", extra: upload.record.extra)
        let committed = try await store.completeUpload(bucket, uploadId: uploadId, record: record, parts: chosen)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: committed.etag)
        headers.add(name: "x-oss-hash-crc64ecma", value: String(committed.crc64))
        committed.extra?.addEncryptionHeaders(&headers)
        addVersionHeader(&headers, committed)
        if let callback {
            return try await callbackResponse(
                callback, headers: headers, context: context, bucket: bucket, object: committed)
        }
        let encode = context.encodingTypeURL
        var w = OSSXMLWriter()
        w.open("CompleteMultipartUploadResult")
        if encode { w.element("EncodingType", "url") }
        w.element("Location", "http://\(context.hostId)/\(bucket)/\(OSSPercentEncoding.encode(key, keepSlash: true))")
        w.element("Bucket", bucket)
        w.element("Key", urlEncoded(key, encode))
        w.element("ETag", committed.etag)
        w.close("CompleteMultipartUploadResult")
        var response = ServerResponse.xml(w.output)
        for (name, value) in headers { response.headers.add(name: name, value: value) }
        return response
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return 0
            }
        }
        while let a = iterator.next(), let b = iterator.next() { out.append(nibble(a) << 4 | nibble(b)) }
        return out
    }

    func listMultipartUploads(_ context: RequestContext) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        let q = context.query
        let prefix = q["prefix"] ?? ""
        let delimiter = q["delimiter"] ?? ""
        let keyMarker = q["key-marker"] ?? ""
        let uploadIdMarker = q["upload-id-marker"] ?? ""
        let maxUploads = try parseLimit(q["max-uploads"], name: "max-uploads", defaultValue: 1000)
        let encode = context.encodingTypeURL
        let all = try await store.uploads(bucket).sorted {
            $0.key.utf8.elementsEqual($1.key.utf8) ? $0.uploadId < $1.uploadId : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
        var uploads: [UploadRecord] = []
        var prefixes: [String] = []
        var truncated = false
        var lastKey = ""
        var lastId = ""
        for upload in all {
            let key = upload.key
            guard key.utf8.starts(with: prefix.utf8) else { continue }
            // A key marker that is a common prefix (the previous page ended on it) skips every key under it.
            if !delimiter.isEmpty, uploadIdMarker.isEmpty, keyMarker.hasSuffix(delimiter), key.utf8.starts(with: keyMarker.utf8) {
                continue
            }
            if !keyMarker.isEmpty {
                if uploadIdMarker.isEmpty {
                    if !keyMarker.utf8.lexicographicallyPrecedes(key.utf8) { continue }
                } else {
                    if key.utf8.lexicographicallyPrecedes(keyMarker.utf8) { continue }
                    if key == keyMarker && upload.uploadId <= uploadIdMarker { continue }
                }
            }
            var commonPrefix: String?
            if !delimiter.isEmpty, let range = key.utf8.dropFirst(prefix.utf8.count).firstRange(of: delimiter.utf8) {
                commonPrefix = String(key[..<range.upperBound])
            }
            if let commonPrefix, prefixes.last == commonPrefix { continue }
            if uploads.count + prefixes.count >= maxUploads {
                truncated = true
                break
            }
            if let commonPrefix {
                prefixes.append(commonPrefix)
                lastKey = commonPrefix
                lastId = ""
            } else {
                uploads.append(upload)
                lastKey = key
                lastId = upload.uploadId
            }
        }
        var w = OSSXMLWriter()
        w.open("ListMultipartUploadsResult")
        if encode { w.element("EncodingType", "url") }
        w.element("Bucket", bucket)
        w.element("KeyMarker", urlEncoded(keyMarker, encode))
        w.element("UploadIdMarker", uploadIdMarker)
        w.element("NextKeyMarker", urlEncoded(lastKey, encode))
        w.element("NextUploadIdMarker", lastId)
        w.element("Delimiter", urlEncoded(delimiter, encode))
        w.element("Prefix", urlEncoded(prefix, encode))
        w.element("MaxUploads", String(maxUploads))
        w.element("IsTruncated", truncated ? "true" : "false")
        for upload in uploads {
            w.open("Upload")
            w.element("Key", urlEncoded(upload.key, encode))
            w.element("UploadId", upload.uploadId)
            w.element("StorageClass", "Standard")
            w.element("Initiated", isoDate(upload.initiated))
            w.close("Upload")
        }
        for commonPrefix in prefixes {
            w.open("CommonPrefixes")
            w.element("Prefix", urlEncoded(commonPrefix, encode))
            w.close("CommonPrefixes")
        }
        w.close("ListMultipartUploadsResult")
        return .xml(w.output)
    }
}
