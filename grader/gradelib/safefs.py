"""Reading what the sandbox wrote, as root, without trusting it.

Every directory a sandboxed command may write (its run directory, valgrind's
XML directory, the coverage directory) can hold anything its uid can make: a
symbolic link to /etc/shadow named like a report, a FIFO that blocks the
first reader forever, a file of gigabytes, a million empty files, a
directory where a file should be. Root copies and reads such places only
through this module:

- a name is looked at with lstat first, so a device or a FIFO is never
  opened at all, then opened with O_NOFOLLOW | O_NONBLOCK (a link is
  refused, and an open can never block), and fstat must show the same
  regular file (a swap between the two is refused);
- directories are walked by file descriptor (openat with O_NOFOLLOW), so no
  component of a path is ever a link that root follows;
- reads stop at a cap, copies stop at a per-file and a total cap and a
  number of entries, and every refusal is recorded with its reason;
- what root writes from it is written atomically (write_atomic).

The same functions read the submission's own files (build.copy_sources).
"""

import contextlib
import errno
import fnmatch
import os
import stat
import tempfile

READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_ENTRIES = 10000   # names looked at by one copy_tree_safely: a flood of files stays cheap
MAX_DEPTH = 8


class Refused(Exception):
    """A name that is not a regular file within its cap; str() says why."""


def kind_of(mode):
    """Words for a file type, for the messages that name a refusal."""
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return words
    return "not a regular file"


def read_regular(path, cap, *, dir_fd=None, whole=True):
    """The bytes of one regular file; raises Refused (or FileNotFoundError).

    whole=True refuses a file larger than cap; whole=False returns its
    first cap bytes. path is relative to dir_fd when one is given."""
    try:
        before = os.lstat(path, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise Refused(f"cannot be looked at ({error.strerror})") from None
    if not stat.S_ISREG(before.st_mode):
        raise Refused(f"is {kind_of(before.st_mode)}")
    try:
        fd = os.open(path, READ_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise Refused("is a symbolic link") from None
        raise Refused(f"cannot be opened ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
            raise Refused("was replaced while it was read")
        if whole and info.st_size > cap:
            raise Refused(f"is larger than {cap} bytes")
        chunks, left = [], cap + (1 if whole else 0)
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if whole and len(data) > cap:   # it grew after the fstat
            raise Refused(f"is larger than {cap} bytes")
        return data
    finally:
        os.close(fd)


def read_capped(path, cap, dir_fd=None):
    """At most cap bytes of a regular file; None for anything else (missing,
    a link, a FIFO, a device, a directory), without ever blocking."""
    try:
        return read_regular(path, cap, dir_fd=dir_fd, whole=False)
    except (Refused, OSError):
        return None


def open_dir(path, dir_fd=None):
    """A descriptor of a directory that is not a link; raises Refused or OSError."""
    try:
        return os.open(path, DIR_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            try:
                mode = os.lstat(path, dir_fd=dir_fd).st_mode
            except OSError:
                raise error from None
            raise Refused(f"is {kind_of(mode)}") from None
        raise


def write_atomic(path, data, durable=True):
    """Writes bytes (or text, as UTF-8) so that readers see the old file or
    the new one, never a part: a temporary file beside it (a fresh name,
    created exclusively, so no link planted there is followed), mode 0644,
    os.replace. durable (every result and report) also fsyncs the file and
    the directory, so that it survives a crash; a scratch copy, which a
    crash discards anyway and which may hold thousands of a submission's
    files, does not pay for it. The one writer of the grader's files."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder, name = os.path.split(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), 0o644)
            if durable:
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if durable:
        fsync_dir(folder or ".")


def fsync_dir(path):
    """fsync of a directory, so that the renames in it survive a crash (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def copy_tree_safely(src_dir, dst_dir, cap_per_file, cap_total, pattern=None):
    """Copies the regular files under src_dir into dst_dir (made as needed).

    Links, FIFOs, devices and sockets are never followed nor opened; files
    over cap_per_file, or past cap_total in all, are not copied; pattern (a
    glob on the file's name) selects files. Returns (copied, refused):
    copied is a list of relative paths, refused a list of (relative path,
    reason). A missing src_dir copies nothing and refuses nothing."""
    copied, refused = [], []
    budget = {"bytes": cap_total, "total": cap_total, "entries": MAX_ENTRIES}
    try:
        top = open_dir(src_dir)
    except FileNotFoundError:
        return copied, refused
    except (Refused, OSError) as error:
        refused.append((".", str(error)))
        return copied, refused
    try:
        _copy_dir(top, "", dst_dir, cap_per_file, pattern, budget, copied, refused, 0)
    finally:
        os.close(top)
    return copied, refused


def _copy_dir(fd, relative, dst_dir, cap_per_file, pattern, budget, copied, refused, depth):
    names = []
    with os.scandir(fd) as entries:
        for entry in entries:
            budget["entries"] -= 1
            if budget["entries"] < 0:   # stop reading the directory itself, not only copying
                refused.append((relative or ".", f"not all looked at: more than {MAX_ENTRIES} names"))
                break
            names.append((entry.name, entry.is_dir(follow_symlinks=False)))
    for name, is_dir in sorted(names):
        where = os.path.join(relative, name)
        if is_dir:
            if depth >= MAX_DEPTH:
                refused.append((where, f"a directory deeper than {MAX_DEPTH} levels"))
                continue
            try:
                child = open_dir(name, dir_fd=fd)
            except (Refused, OSError) as error:
                refused.append((where, str(error)))
                continue
            try:
                _copy_dir(child, where, dst_dir, cap_per_file, pattern, budget, copied, refused, depth + 1)
            finally:
                os.close(child)
            continue
        if pattern is not None and not fnmatch.fnmatchcase(name, pattern):
            continue
        try:
            data = read_regular(name, min(cap_per_file, budget["bytes"]), dir_fd=fd)
        except Refused as why:
            reason = str(why)
            if "larger than" in reason and budget["bytes"] < cap_per_file:
                reason = f"not copied: the copy reached its total cap of {budget['total']} bytes"
            refused.append((where, reason))
            continue
        except OSError as error:   # gone meanwhile
            refused.append((where, str(error)))
            continue
        budget["bytes"] -= len(data)
        target = os.path.join(dst_dir, where)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write_atomic(target, data, durable=False)
        copied.append(where)
