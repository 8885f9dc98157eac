// The browser side of the BrowserUpload sample: plain JavaScript, no build step, no library.
//
// Small files: POST /uploads/form gives a signed PostObject form; the page posts its fields, then the file (last),
// straight to the bucket. Large files: POST /uploads/multipart gives a plan (upload id, part size, one presigned
// PUT per part, a presigned ListParts); the page sends a few parts at once, remembers the upload and its finished
// parts in localStorage, and after a reload resumes it when the same file is chosen again: ListParts (presigned)
// says which parts the bucket has, and only the others are sent. POST /uploads/complete lets the backend check the
// parts and complete the upload.
//
// State for people and for the browser test: each file's <li> carries data-state (uploading, done, failed), data-how
// (form, multipart), data-parts, data-done-parts, data-resumed-from (parts found in the bucket when resuming) and
// data-sent-parts (parts sent by this page load); <body data-busy> is "yes" while anything uploads.
"use strict";

const $ = (id) => document.getElementById(id);
let session = null;
let busy = 0;

function setBusy(delta) {
    busy += delta;
    document.body.dataset.busy = busy > 0 ? "yes" : "no";
}

function mib(bytes) {
    if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KiB`;
    if (bytes < 1 << 30) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
    return `${(bytes / (1 << 30)).toFixed(1)} GiB`;
}

function showError(error) {
    $("error").textContent = error ? String(error.message || error) : "";
}

// A call to the backend (same origin, the session cookie goes along); a refusal is an Error with .status.
async function api(method, path, body) {
    const response = await fetch(path, {
        method,
        headers: body ? { "Content-Type": "application/json" } : {},
        body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) {
        const text = await response.text();
        let message = text;
        try { message = JSON.parse(text).error.message; } catch (_) { /* not JSON */ }
        const error = new Error(`${method} ${path}: ${response.status} ${message}`);
        error.status = response.status;
        throw error;
    }
    return response.status === 204 ? null : response.json();
}

// A request to the bucket (another origin: CORS), with upload progress.
function send(method, url, headers, body, onProgress) {
    return new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open(method, url);
        for (const [name, value] of Object.entries(headers || {})) xhr.setRequestHeader(name, value);
        if (onProgress) xhr.upload.onprogress = (event) => onProgress(event.loaded);
        xhr.onload = () => {
            if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr);
            const code = /<Code>([^<]*)<\/Code>/.exec(xhr.responseText || "");
            const error = new Error(`${method} to the bucket: ${xhr.status} ${code ? code[1] : ""}`);
            error.status = xhr.status;
            reject(error);
        };
        xhr.onerror = () => reject(new Error(`${method} to the bucket failed (network or CORS)`));
        xhr.send(body);
    });
}

// MARK: remembered multipart uploads (localStorage, per user)

function storageKey() { return `browser-upload:${session.user}`; }
function fileId(file) { return `${file.name}|${file.size}|${file.lastModified}`; }

function remembered() {
    try { return JSON.parse(localStorage.getItem(storageKey()) || "{}"); } catch (_) { return {}; }
}

function remember(id, upload) {
    const all = remembered();
    if (upload) all[id] = upload; else delete all[id];
    localStorage.setItem(storageKey(), JSON.stringify(all));
    renderUnfinished();
}

function renderUnfinished() {
    const list = $("unfinished");
    list.replaceChildren();
    const all = remembered();
    for (const [id, upload] of Object.entries(all)) {
        const item = document.createElement("li");
        item.dataset.key = upload.key;
        item.dataset.doneParts = upload.done.length;
        item.dataset.parts = upload.parts;
        item.className = "row";
        const text = document.createElement("span");
        text.textContent = `${upload.name} (${mib(upload.size)}): ${upload.done.length} of ${upload.parts} parts in the bucket`;
        const discard = document.createElement("button");
        discard.textContent = "Discard";
        discard.onclick = () => discardUpload(id, upload).catch(showError);
        item.append(text, discard);
        list.append(item);
    }
    $("resumable").hidden = Object.keys(all).length === 0;
}

async function discardUpload(id, upload) {
    try {
        const plan = await api("POST", "/uploads/multipart", { key: upload.key, size: upload.size, uploadId: upload.uploadId });
        await send(plan.abort.method, plan.abort.url, plan.abort.headers);
    } catch (error) {
        if (error.status !== 404) throw error;
    }
    remember(id, null);
}

// MARK: uploads

function addRow(file, key, how) {
    const item = document.createElement("li");
    item.dataset.key = key;
    item.dataset.how = how;
    item.dataset.state = "uploading";
    const line = document.createElement("div");
    line.className = "row";
    const name = document.createElement("span");
    name.textContent = `${file.name} (${mib(file.size)}, ${how === "form" ? "POST form" : "multipart"})`;
    const state = document.createElement("span");
    state.className = "state";
    const bar = document.createElement("progress");
    bar.max = file.size || 1;
    bar.value = 0;
    line.append(name, state);
    item.append(line, bar);
    $("uploads").append(item);
    return {
        item,
        progress(bytes, text) { bar.value = bytes; state.textContent = text || `${mib(bytes)} of ${mib(file.size)}`; },
        finish(ok, text) { item.dataset.state = ok ? "done" : "failed"; state.textContent = text; if (ok) bar.value = bar.max; },
    };
}

async function uploadWithForm(file, key) {
    const row = addRow(file, key, "form");
    const form = await api("POST", "/uploads/form", { key, size: file.size, contentType: file.type || undefined });
    const data = new FormData();
    for (const field of form.fields) data.append(field.name, field.value);
    data.append("file", file); // the file field must be the last one
    await send("POST", form.url, {}, data, (loaded) => row.progress(Math.min(loaded, file.size)));
    row.finish(true, "uploaded");
}

function partLength(plan, number) {
    const start = (number - 1) * plan.partSize;
    return Math.min(plan.partSize, plan.size - start);
}

// The parts the bucket already has (presigned ListParts), counted only when their size is the planned one.
async function partsInBucket(plan) {
    const xhr = await send(plan.listParts.method, plan.listParts.url, plan.listParts.headers);
    const xml = new DOMParser().parseFromString(xhr.responseText, "application/xml");
    const done = new Set();
    for (const part of xml.getElementsByTagName("Part")) {
        const number = Number(part.getElementsByTagName("PartNumber")[0].textContent);
        const size = Number(part.getElementsByTagName("Size")[0].textContent);
        if (number >= 1 && number <= plan.parts.length && size === partLength(plan, number)) done.add(number);
    }
    return done;
}

async function uploadInParts(file, key) {
    const id = fileId(file);
    const row = addRow(file, key, "multipart");
    let previous = remembered()[id];
    let plan;
    try {
        plan = await api("POST", "/uploads/multipart", { key, size: file.size, contentType: file.type || undefined, uploadId: previous && previous.uploadId });
    } catch (error) {
        if (!previous || error.status !== 404) throw error;
        previous = null; // the upload is gone (completed, aborted or expired): start again
        remember(id, null);
        plan = await api("POST", "/uploads/multipart", { key, size: file.size, contentType: file.type || undefined });
    }
    const done = previous ? await partsInBucket(plan) : new Set();
    const count = plan.parts.length;
    const saved = { key, name: file.name, size: file.size, uploadId: plan.uploadId, parts: count };
    remember(id, { ...saved, done: [...done] });
    row.item.dataset.parts = count;
    row.item.dataset.resumedFrom = done.size;
    row.item.dataset.sentParts = 0;
    row.item.dataset.doneParts = done.size;

    const inFlight = new Map();
    const update = () => {
        let bytes = 0;
        for (const number of done) bytes += partLength(plan, number);
        for (const loaded of inFlight.values()) bytes += loaded;
        row.progress(bytes, `${done.size} of ${count} parts`);
    };
    update();
    const queue = plan.parts.map((_, index) => index + 1).filter((number) => !done.has(number));
    let sent = 0;
    const worker = async () => {
        while (queue.length > 0) {
            const number = queue.shift();
            const start = (number - 1) * plan.partSize;
            const link = plan.parts[number - 1];
            const blob = file.slice(start, start + partLength(plan, number));
            inFlight.set(number, 0);
            await send(link.method, link.url, link.headers, blob, (loaded) => { inFlight.set(number, loaded); update(); });
            inFlight.delete(number);
            done.add(number);
            sent += 1;
            row.item.dataset.sentParts = sent;
            row.item.dataset.doneParts = done.size;
            remember(id, { ...saved, done: [...done] });
            update();
        }
    };
    await Promise.all(Array.from({ length: Math.min(session.parallelParts, Math.max(queue.length, 1)) }, worker));
    const stored = await api("POST", "/uploads/complete", { key, uploadId: plan.uploadId, size: file.size });
    remember(id, null);
    row.finish(true, `uploaded in ${count} parts${previous ? `, resumed with ${row.item.dataset.resumedFrom} in the bucket` : ""}`);
    return stored;
}

async function uploadFiles(files) {
    showError(null);
    setBusy(1);
    try {
        for (const file of files) {
            const key = session.prefix + file.name;
            try {
                if (file.size <= session.formLimit) await uploadWithForm(file, key);
                else await uploadInParts(file, key);
            } catch (error) {
                const rows = $("uploads").querySelectorAll("li");
                const row = rows[rows.length - 1];
                if (row && row.dataset.key === key && row.dataset.state === "uploading") {
                    row.dataset.state = "failed";
                    row.querySelector(".state").textContent = "failed";
                }
                showError(error);
            }
        }
        await listObjects();
    } finally {
        setBusy(-1);
    }
}

async function listObjects() {
    const listing = await api("GET", "/objects");
    const list = $("objects");
    list.replaceChildren();
    for (const object of listing.objects) {
        const item = document.createElement("li");
        item.className = "row";
        item.dataset.key = object.key;
        item.dataset.size = object.size;
        const name = document.createElement("span");
        name.textContent = object.key.slice(session.prefix.length);
        const size = document.createElement("span");
        size.textContent = mib(object.size);
        item.append(name, size);
        list.append(item);
    }
    $("listing").hidden = false;
}

// MARK: session

async function start() {
    setBusy(0);
    try {
        session = await api("GET", "/session");
    } catch (error) {
        if (error.status !== 401) return showError(error);
        $("signin").hidden = false;
        return;
    }
    $("signin").hidden = true;
    $("app").hidden = false;
    $("who").textContent = session.user;
    $("prefix").textContent = session.prefix;
    $("limits").textContent = `Files up to ${mib(session.formLimit)} go up as one POST form; larger ones, up to ` +
        `${mib(session.multipartLimit)}, in parts, ${session.parallelParts} at a time.`;
    renderUnfinished();
    await listObjects();
    document.body.dataset.ready = "yes";
}

$("signin-form").onsubmit = async (event) => {
    event.preventDefault();
    try {
        await api("POST", "/session", { user: $("user").value });
        await start();
    } catch (error) {
        showError(error);
    }
};

$("signout").onclick = async () => {
    await api("DELETE", "/session");
    location.reload();
};

$("files").onchange = (event) => {
    const files = [...event.target.files];
    event.target.value = "";
    uploadFiles(files);
};

start().catch(showError);
