// One import is enough for users: `import AliyunOSS` also brings the credential, signature-version and CRC types,
// and the one public type of the package-internal OSSResumable module that the SDK's API uses (`OSSBaseDirectory`).
@_exported import OSSCRC64
@_exported import OSSSigning
@_exported import OSSResumable
