/*
 * A folder's listing as the API's JSON, for the file operations' `list`
 * (worker/resident/file-operations.ts), which loads this library with ctypes
 * and falls back to its own Python where the image lacks it.
 *
 * Why C: listing 10,000 entries took ~48 ms of CPU in Python, of which the
 * lstat calls were ~30 ms and making a Python object of every entry and stat
 * the rest; here it is the lstat calls and little else. The container has
 * half a vCPU, so the CPU is the time.
 *
 *   {"entries":[{"name":"a","type":"file","size":1,"modifiedAt":1764900000000},...]}
 *
 * Types are the file tree's: a directory, a symbolic link, and anything else
 * a file. An entry removed between readdir and lstat is left out. A name that
 * is not UTF-8 fails the whole listing with EILSEQ, as the Python does; names
 * are written as UTF-8, escaped only where JSON requires it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct out {
  char *bytes;
  size_t length, capacity;
};

static int reserve(struct out *out, size_t more) {
  if (out->length + more <= out->capacity) return 0;
  size_t capacity = out->capacity ? out->capacity : 64 * 1024;
  while (capacity < out->length + more) capacity *= 2;
  char *bytes = realloc(out->bytes, capacity);
  if (!bytes) return -1;
  out->bytes = bytes;
  out->capacity = capacity;
  return 0;
}

/* Strict UTF-8, as Python decodes it: no overlong forms, surrogates or code points past U+10FFFF. */
static int is_utf8(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      i += 1;
      continue;
    }
    size_t more;
    unsigned char low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) more = 1;
    else if (c == 0xE0) more = 2, low = 0xA0;
    else if (c == 0xED) more = 2, high = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) more = 2;
    else if (c == 0xF0) more = 3, low = 0x90;
    else if (c == 0xF4) more = 3, high = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) more = 3;
    else return 0;
    if (i + more >= n) return 0; /* cut short */
    if (s[i + 1] < low || s[i + 1] > high) return 0;
    for (size_t k = 2; k <= more; k++)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
    i += more + 1;
  }
  return 1;
}

/*
 * Lists the folder open at `dirfd` (which stays open, and is not read from:
 * a duplicate is). Returns the JSON's length and sets *result to it (free it
 * with cloud_ide_free), or a negative errno.
 */
long cloud_ide_list(int dirfd, char **result) {
  int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return -errno;
  DIR *dir = fdopendir(fd);
  if (!dir) {
    int error = errno;
    close(fd);
    return -error;
  }
  struct out out = {0};
  int error = 0;
  if (reserve(&out, 16)) error = ENOMEM;
  else {
    memcpy(out.bytes, "{\"entries\":[", 12);
    out.length = 12;
  }
  int first = 1;
  struct dirent *entry;
  while (!error) {
    errno = 0;
    entry = readdir(dir);
    if (!entry) {
      error = errno;
      break;
    }
    const char *name = entry->d_name;
    if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      error = errno;
      break;
    }
    size_t n = strlen(name);
    if (!is_utf8((const unsigned char *)name, n)) {
      error = EILSEQ;
      break;
    }
    /* Six bytes a name byte at most (\u00XX), and room for the rest of the entry. */
    if (reserve(&out, n * 6 + 128)) {
      error = ENOMEM;
      break;
    }
    char *w = out.bytes + out.length;
    if (!first) *w++ = ',';
    first = 0;
    memcpy(w, "{\"name\":\"", 9);
    w += 9;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)name[i];
      if (c == '"' || c == '\\') {
        *w++ = '\\';
        *w++ = (char)c;
      } else if (c < 0x20) {
        w += sprintf(w, "\\u%04x", c);
      } else {
        *w++ = (char)c;
      }
    }
    const char *type = S_ISDIR(st.st_mode) ? "directory" : S_ISLNK(st.st_mode) ? "symlink" : "file";
    long long modified = (long long)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    w += sprintf(w, "\",\"type\":\"%s\",\"size\":%lld,\"modifiedAt\":%lld}", type, (long long)st.st_size, modified);
    out.length = (size_t)(w - out.bytes);
  }
  closedir(dir);
  if (!error && reserve(&out, 2)) error = ENOMEM;
  if (error) {
    free(out.bytes);
    return -error;
  }
  memcpy(out.bytes + out.length, "]}", 2);
  out.length += 2;
  *result = out.bytes;
  return (long)out.length;
}

void cloud_ide_free(char *bytes) { free(bytes); }
