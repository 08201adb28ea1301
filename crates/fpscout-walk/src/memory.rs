//! Walker memory: separate objects of typed scalar cells, so symbolic values survive
//! stores and loads, with byte-level fallback when concrete bits are reinterpreted.

use crate::domain::Domain;
use crate::{DResult, WalkError};
use fpscout_ir::{CastOp, IBinOp, ScalarTy};
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// Index of a memory object; 0 is reserved for the null pointer.
pub type ObjectId = u32;

/// A pointer: an object and a byte offset into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ptr {
    pub obj: ObjectId,
    pub offset: i64,
}

impl Ptr {
    pub const NULL: Ptr = Ptr { obj: 0, offset: 0 };
    const OFFSET_BITS: u32 = 40;

    /// The integer a `ptrtoint` yields: object in the high bits, offset in the low ones.
    pub fn to_int(self) -> u64 {
        (u64::from(self.obj) << Self::OFFSET_BITS)
            | (self.offset as u64 & ((1u64 << Self::OFFSET_BITS) - 1))
    }
    pub fn from_int(v: u64) -> Ptr {
        let raw = v & ((1u64 << Self::OFFSET_BITS) - 1);
        let offset = fpscout_ir::sign_extend(raw, Self::OFFSET_BITS);
        Ptr {
            obj: (v >> Self::OFFSET_BITS) as u32,
            offset,
        }
    }
    // Pointer plus byte offset (not `Ptr + Ptr`): not an `std::ops::Add`.
    #[allow(clippy::should_implement_trait)]
    pub fn add(self, delta: i64) -> Ptr {
        Ptr {
            obj: self.obj,
            offset: self.offset.wrapping_add(delta),
        }
    }
}

/// What one memory cell holds.
#[derive(Clone, Debug)]
pub enum Cell<S> {
    Scalar(ScalarTy, S),
    Ptr(Ptr),
}

/// Objects up to this many bytes keep their cells in a vector indexed by byte offset;
/// larger ones in an ordered map.
const DENSE_MAX: u64 = 4096;

/// The cells of one object, keyed by their first byte's offset.
#[derive(Debug)]
enum Cells<S> {
    /// Slot `i` holds the cell starting at byte `i` (one slot per byte of the object).
    Dense(Vec<Option<Cell<S>>>),
    Sparse(BTreeMap<u64, Cell<S>>),
}

impl<S: Clone> Clone for Cells<S> {
    fn clone(&self) -> Self {
        match self {
            Cells::Dense(v) => Cells::Dense(v.clone()),
            Cells::Sparse(m) => Cells::Sparse(m.clone()),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Cells::Dense(v), Cells::Dense(w)) => v.clone_from(w),
            (Cells::Sparse(m), Cells::Sparse(n)) => m.clone_from(n),
            (this, source) => *this = source.clone(),
        }
    }
}

impl<S> Cells<S> {
    fn for_size(size: u64) -> Cells<S> {
        if size <= DENSE_MAX {
            let mut v = Vec::new();
            v.resize_with(size as usize, || None);
            Cells::Dense(v)
        } else {
            Cells::Sparse(BTreeMap::new())
        }
    }

    /// Reuses this (emptied) storage for an object of `size` bytes.
    fn reuse_for(&mut self, size: u64) {
        match self {
            Cells::Dense(v) if size <= DENSE_MAX => {
                v.clear();
                v.resize_with(size as usize, || None);
            }
            _ => *self = Cells::for_size(size),
        }
    }

    #[inline]
    fn get(&self, off: u64) -> Option<&Cell<S>> {
        match self {
            Cells::Dense(v) => v.get(off as usize).and_then(Option::as_ref),
            Cells::Sparse(m) => m.get(&off),
        }
    }

    #[inline]
    fn insert(&mut self, off: u64, c: Cell<S>) {
        match self {
            Cells::Dense(v) => v[off as usize] = Some(c),
            Cells::Sparse(m) => {
                m.insert(off, c);
            }
        }
    }

    #[inline]
    fn remove(&mut self, off: u64) -> Option<Cell<S>> {
        match self {
            Cells::Dense(v) => v.get_mut(off as usize).and_then(Option::take),
            Cells::Sparse(m) => m.remove(&off),
        }
    }

    fn clear(&mut self) {
        match self {
            Cells::Dense(v) => v.iter_mut().for_each(|c| *c = None),
            Cells::Sparse(m) => m.clear(),
        }
    }

    /// The cells starting in `[lo, hi)`, in order.
    #[inline]
    fn range(&self, lo: u64, hi: u64) -> impl Iterator<Item = (u64, &Cell<S>)> {
        let (dense, sparse) = match self {
            Cells::Dense(v) => {
                let hi = (hi as usize).min(v.len());
                let lo = (lo as usize).min(hi);
                (Some((lo, &v[lo..hi])), None)
            }
            Cells::Sparse(m) => (None, Some(m.range(lo..hi))),
        };
        let dense = dense.into_iter().flat_map(|(lo, slots)| {
            slots
                .iter()
                .enumerate()
                .filter_map(move |(i, c)| c.as_ref().map(|c| ((lo + i) as u64, c)))
        });
        let sparse = sparse.into_iter().flatten().map(|(&s, c)| (s, c));
        dense.chain(sparse)
    }

    /// The last cell starting in `[lo, b]` that covers byte `b`.
    #[inline]
    fn covering(&self, b: u64) -> Option<(u64, &Cell<S>)> {
        let lo = b.saturating_sub(7);
        match self {
            Cells::Dense(v) => (lo..=b).rev().find_map(|s| {
                v.get(s as usize)
                    .and_then(Option::as_ref)
                    .filter(|c| s + cell_size(c) > b)
                    .map(|c| (s, c))
            }),
            Cells::Sparse(m) => m
                .range(lo..=b)
                .rev()
                .find(|(&s, c)| s + cell_size(c) > b)
                .map(|(&s, c)| (s, c)),
        }
    }
}

#[derive(Clone, Debug)]
struct Object<S> {
    name: String,
    size: u64,
    cells: Cells<S>,
    live: bool,
    writable: bool,
    /// Returned by `malloc`, `calloc` or `realloc`: only such objects may be freed.
    heap: bool,
    /// Cells or liveness changed since the memory was last reset.
    dirty: bool,
}

/// All objects a walk can reach: arguments' buffers, globals, allocas.
#[derive(Debug)]
pub struct Memory<S> {
    objects: Vec<Object<S>>,
    /// Objects dropped by resets, kept to reuse their storage.
    spare: Vec<Object<S>>,
    /// Identifies this memory among all memories of the process (clones get their own).
    token: u64,
    /// The token of the memory this one was last reset to (0 if none).
    last_reset: u64,
    /// `last_reset` while nothing has changed since that reset (0 otherwise).
    unchanged_copy_of: u64,
}

/// The largest heap object `malloc`, `calloc` and `realloc` give (1 MiB): a zeroed or
/// copied object holds a cell per byte, and the numerical code fpscout walks allocates
/// work arrays far smaller. A larger request is unsupported on its path.
pub const MAX_HEAP_OBJECT: u64 = 1 << 20;

/// At most this many dropped objects are kept for reuse.
const MAX_SPARE: usize = 64;

/// A token no memory has had yet.
fn fresh_token() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl<S: Clone> Clone for Memory<S> {
    fn clone(&self) -> Self {
        Memory {
            objects: self.objects.clone(),
            spare: Vec::new(),
            token: fresh_token(),
            last_reset: self.last_reset,
            unchanged_copy_of: self.unchanged_copy_of,
        }
    }
}

impl<S: Clone> Default for Memory<S> {
    fn default() -> Self {
        Memory::new()
    }
}

/// [`ScalarTy::store_size`], inlinable here.
#[inline]
pub(crate) fn store_size(t: ScalarTy) -> u64 {
    match t {
        ScalarTy::Int(w) => u64::from(w.div_ceil(8)).max(1),
        ScalarTy::Float(fpscout_ir::FloatTy::F32) => 4,
        ScalarTy::Float(fpscout_ir::FloatTy::F64) | ScalarTy::Ptr => 8,
    }
}

#[inline]
fn cell_size<S>(c: &Cell<S>) -> u64 {
    match c {
        Cell::Scalar(t, _) => store_size(*t),
        Cell::Ptr(_) => 8,
    }
}

impl<S: Clone> Memory<S> {
    pub fn new() -> Memory<S> {
        let null = Object {
            name: "null".into(),
            size: 0,
            cells: Cells::for_size(0),
            live: false,
            writable: false,
            heap: false,
            dirty: false,
        };
        Memory {
            objects: vec![null],
            spare: Vec::new(),
            token: fresh_token(),
            last_reset: 0,
            unchanged_copy_of: 0,
        }
    }

    /// Creates an object of `size` bytes and returns a pointer to its start.
    pub fn alloc(&mut self, name: impl Into<String>, size: u64, writable: bool) -> Ptr {
        self.alloc_object(name.into(), size, writable)
    }

    /// [`Memory::alloc`] with a borrowed name (reusing a dropped object's storage).
    pub(crate) fn alloc_named(&mut self, name: &str, size: u64, writable: bool) -> Ptr {
        match self.spare.pop() {
            Some(mut o) => {
                self.unchanged_copy_of = 0;
                o.name.clear();
                o.name.push_str(name);
                o.size = size;
                o.cells.reuse_for(size);
                o.live = true;
                o.writable = writable;
                o.heap = false;
                o.dirty = true;
                let obj = self.objects.len() as ObjectId;
                self.objects.push(o);
                Ptr { obj, offset: 0 }
            }
            None => self.alloc_object(name.to_string(), size, writable),
        }
    }

    fn alloc_object(&mut self, name: String, size: u64, writable: bool) -> Ptr {
        self.unchanged_copy_of = 0;
        let obj = self.objects.len() as ObjectId;
        self.objects.push(Object {
            name,
            size,
            cells: Cells::for_size(size),
            live: true,
            writable,
            heap: false,
            dirty: true,
        });
        Ptr { obj, offset: 0 }
    }

    /// Drops the objects from index `n` on, keeping some for reuse.
    fn retire_from(&mut self, n: usize) {
        if self.objects.len() > n {
            let room = MAX_SPARE.saturating_sub(self.spare.len());
            let keep = (self.objects.len() - n).min(room);
            self.objects.truncate(n + keep);
            self.spare.extend(self.objects.drain(n..));
        }
    }

    /// Returns to a snapshot this memory started from: objects created since are dropped,
    /// writable objects get their cells back (read-only ones cannot have changed).
    pub fn reset_to(&mut self, snapshot: &Memory<S>) {
        self.retire_from(snapshot.objects.len());
        for (o, p) in self.objects.iter_mut().zip(&snapshot.objects) {
            if o.writable || o.live != p.live {
                o.cells.clone_from(&p.cells);
                o.live = p.live;
            }
            o.dirty = false;
        }
        if self.objects.len() < snapshot.objects.len() {
            let have = self.objects.len();
            self.objects
                .extend(snapshot.objects[have..].iter().cloned());
            for o in &mut self.objects[have..] {
                o.dirty = false;
            }
        }
        self.last_reset = snapshot.token;
        self.unchanged_copy_of = snapshot.token;
    }

    /// [`Memory::reset_to`] for a snapshot that has not changed since this memory was
    /// last reset to it (if it was): then only what changed since is restored.
    pub(crate) fn reset_to_unchanged(&mut self, snapshot: &Memory<S>) {
        if self.unchanged_copy_of == snapshot.token {
            return;
        }
        let n = snapshot.objects.len();
        if self.last_reset != snapshot.token || self.objects.len() < n {
            return self.reset_to(snapshot);
        }
        self.retire_from(n);
        for (o, p) in self.objects.iter_mut().zip(&snapshot.objects) {
            if o.dirty {
                if o.writable || o.live != p.live {
                    o.cells.clone_from(&p.cells);
                    o.live = p.live;
                }
                o.dirty = false;
            }
        }
        self.unchanged_copy_of = snapshot.token;
    }

    /// Ends an object's lifetime (allocas at function return).
    pub fn kill(&mut self, obj: ObjectId) {
        self.unchanged_copy_of = 0;
        if let Some(o) = self.objects.get_mut(obj as usize) {
            o.live = false;
            o.cells.clear();
            o.dirty = true;
        }
    }

    /// `malloc(size)`: a fresh object of uninitialised cells (reading one before writing
    /// it is unsupported, as for a local). `malloc(0)` gives a unique non-null pointer
    /// to an object of no bytes, as glibc does.
    pub fn heap_alloc(&mut self, size: u64) -> DResult<Ptr> {
        if size > MAX_HEAP_OBJECT {
            return Err(WalkError::unsupported(format!(
                "a heap allocation of {size} bytes (fpscout models heap objects up to \
                 {MAX_HEAP_OBJECT} bytes)"
            )));
        }
        let p = self.alloc_named("heap", size, true);
        self.objects[p.obj as usize].heap = true;
        Ok(p)
    }

    /// `calloc`'s `count * size` bytes, all zero.
    pub fn heap_alloc_zeroed<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        size: u64,
    ) -> DResult<Ptr> {
        let p = self.heap_alloc(size)?;
        self.fill(d, p, 0, size)?;
        Ok(p)
    }

    /// `realloc(old, size)`: a new object holding the old one's cells up to the smaller
    /// size (the rest uninitialised), the old one freed. `realloc(NULL, size)` is
    /// `malloc(size)`; `realloc(old, 0)` frees `old` and returns NULL (glibc's
    /// REALLOC_ZERO_BYTES_FREES).
    pub fn heap_realloc<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        old: Ptr,
        size: u64,
    ) -> DResult<Ptr> {
        if old == Ptr::NULL {
            return self.heap_alloc(size);
        }
        let old_size = self.freeable(old, "realloc")?;
        if size == 0 {
            self.heap_free(old)?;
            return Ok(Ptr::NULL);
        }
        let new = self.heap_alloc(size)?;
        self.copy(d, new, old, old_size.min(size))?;
        self.heap_free(old)?;
        Ok(new)
    }

    /// `free(p)`: ends a heap object's lifetime; later uses and a second free trap.
    /// `free(NULL)` does nothing.
    pub fn heap_free(&mut self, p: Ptr) -> DResult<()> {
        if p == Ptr::NULL {
            return Ok(());
        }
        self.freeable(p, "free")?;
        self.kill(p.obj);
        Ok(())
    }

    /// The size of the live heap object `p` points to the start of; a trap otherwise
    /// (glibc aborts on an invalid pointer or a double free).
    fn freeable(&self, p: Ptr, what: &str) -> DResult<u64> {
        match self.objects.get(p.obj as usize) {
            Some(o) if o.heap && !o.live => Err(WalkError::trap(format!(
                "{what} of heap memory that was already freed"
            ))),
            Some(o) if o.heap && p.offset == 0 => Ok(o.size),
            Some(o) if o.heap => Err(WalkError::trap(format!(
                "{what} of a pointer {} bytes into a heap object",
                p.offset
            ))),
            Some(o) => Err(WalkError::trap(format!(
                "{what} of a pointer to '{}', which is not heap memory",
                o.name
            ))),
            None => Err(bad_pointer(what)),
        }
    }

    pub fn object_size(&self, obj: ObjectId) -> Option<u64> {
        self.objects.get(obj as usize).map(|o| o.size)
    }

    #[inline]
    fn checked(&self, p: Ptr, size: u64, what: &str) -> DResult<(usize, u64)> {
        let o = match self.objects.get(p.obj as usize) {
            Some(o) if o.live => o,
            Some(o) if o.heap => return Err(use_after_free(what)),
            _ => return Err(bad_pointer(what)),
        };
        if p.offset < 0 || (p.offset as u64).saturating_add(size) > o.size {
            return Err(out_of_bounds(what, size, p.offset, o));
        }
        Ok((p.obj as usize, p.offset as u64))
    }

    /// Writes one scalar cell, replacing whatever overlapped it.
    pub fn store<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        p: Ptr,
        cell: Cell<S>,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        let size = cell_size(&cell);
        let (obj, off) = self.checked(p, size, "store")?;
        if !self.objects[obj].writable {
            return Err(WalkError::trap(format!(
                "store into read-only '{}'",
                self.objects[obj].name
            )));
        }
        let object = &mut self.objects[obj];
        // Overwriting a cell of the same size (up to 8 bytes, the reach of `clear_range`'s
        // scan): cells never overlap, so nothing else meets the range and the cell is just
        // replaced.
        if size <= 8 && object.cells.get(off).is_some_and(|c| cell_size(c) == size) {
            object.dirty = true;
            object.cells.insert(off, cell);
            return Ok(());
        }
        self.clear_range(d, obj, off, size)?;
        self.objects[obj].cells.insert(off, cell);
        Ok(())
    }

    /// Writes an initial value, even into read-only objects (global initialisers).
    pub fn store_init<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        p: Ptr,
        cell: Cell<S>,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        let size = cell_size(&cell);
        let (obj, off) = self.checked(p, size, "initialiser")?;
        self.clear_range(d, obj, off, size)?;
        self.objects[obj].cells.insert(off, cell);
        Ok(())
    }

    /// Removes cells overlapping `[off, off+size)`, keeping the bytes of partially
    /// overlapped concrete cells as byte cells (and marks the object changed).
    fn clear_range<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        obj: usize,
        off: u64,
        size: u64,
    ) -> DResult<()> {
        let end = off + size;
        let object = &mut self.objects[obj];
        object.dirty = true;
        let cells = &mut object.cells;
        let start_scan = off.saturating_sub(7);
        if let Cells::Dense(slots) = cells {
            // Nothing starts near the range (a fresh object): nothing to clear.
            let hi = (end as usize).min(slots.len());
            let lo = (start_scan as usize).min(hi);
            if slots[lo..hi].iter().all(Option::is_none) {
                return Ok(());
            }
        }
        let overlapping: SmallVec<[u64; 8]> = cells
            .range(start_scan, end)
            .filter(|&(s, c)| s + cell_size(c) > off)
            .map(|(s, _)| s)
            .collect();
        for s in overlapping {
            let Some(old) = cells.remove(s) else {
                continue;
            };
            let old_size = cell_size(&old);
            if s >= off && s + old_size <= end {
                continue;
            }
            let bits = match &old {
                Cell::Scalar(_, v) => d.concrete_bits(v),
                Cell::Ptr(p) => Some(p.to_int()),
            };
            if let Some(bits) = bits {
                for i in 0..old_size {
                    let b = s + i;
                    if b < off || b >= end {
                        let byte = (bits >> (8 * i)) & 0xff;
                        cells.insert(b, Cell::Scalar(ScalarTy::Int(8), d_const(d, byte)));
                    }
                }
            } else if let Cell::Scalar(t, v) = &old {
                // A symbolic value partly overwritten (SET_LOW_WORD through a union): its
                // other bytes stay as integers the domain computes from it, where it can
                // (else they are gone, and reading them is an uninitialized read).
                let mut keep = |at: u64, len: u64| {
                    if let Ok(part) = slice_of(d, *t, v, at - s, len) {
                        cells.insert(at, Cell::Scalar(ScalarTy::Int((len * 8) as u32), part));
                    }
                };
                if s < off {
                    keep(s, off - s);
                }
                if s + old_size > end {
                    keep(end, s + old_size - end);
                }
            }
        }
        Ok(())
    }

    /// Reads a scalar of type `ty`.
    pub fn load<D: Domain<Scalar = S>>(&self, d: &mut D, p: Ptr, ty: ScalarTy) -> DResult<Cell<S>> {
        let size = store_size(ty);
        let (obj, off) = self.checked(p, size, "load")?;
        let cells = &self.objects[obj].cells;
        if let Some(c) = cells.get(off) {
            if cell_size(c) == size {
                return reinterpret(d, c, ty);
            }
        }
        if let Some((start, Cell::Scalar(t, v))) = cells.covering(off) {
            if start + store_size(*t) >= off + size && d.concrete_bits(v).is_none() {
                // Part of a symbolic value (GET_HIGH_WORD through a union): its bits
                // shifted and truncated by the domain, which models what it can.
                let part = slice_of(d, *t, v, off - start, size)?;
                return Ok(Cell::Scalar(ty, reinterpret_int(d, size, ty, part)?));
            }
        }
        // Assemble from bytes of concrete cells (type punning, memset, partial copies).
        let mut bits = 0u64;
        for i in 0..size {
            let b = off + i;
            let (start, c) = cells.covering(b).ok_or_else(|| {
                WalkError::unsupported(format!(
                    "read of uninitialized memory in '{}' at offset {b}",
                    self.objects[obj].name
                ))
            })?;
            let cbits = match c {
                Cell::Scalar(_, v) => d.concrete_bits(v),
                Cell::Ptr(p) => Some(p.to_int()),
            };
            let Some(cbits) = cbits else {
                return self.assemble_symbolic(d, obj, off, size, ty);
            };
            let byte = (cbits >> (8 * (b - start))) & 0xff;
            bits |= byte << (8 * i);
        }
        Ok(match ty {
            ScalarTy::Ptr => Cell::Ptr(Ptr::from_int(bits)),
            t => Cell::Scalar(t, d.constant(t, bits)),
        })
    }

    /// A scalar read across several cells some of which are symbolic (INSERT_WORDS,
    /// SET_HIGH_WORD through a union): each piece's bytes shifted into place and ORed,
    /// by the domain, which models what it can.
    fn assemble_symbolic<D: Domain<Scalar = S>>(
        &self,
        d: &mut D,
        obj: usize,
        off: u64,
        size: u64,
        ty: ScalarTy,
    ) -> DResult<Cell<S>> {
        let cells = &self.objects[obj].cells;
        let whole = ScalarTy::Int((size * 8) as u32);
        let mut acc: Option<S> = None;
        let mut b = off;
        while b < off + size {
            let (start, c) = cells.covering(b).ok_or_else(|| {
                WalkError::unsupported(format!(
                    "read of uninitialized memory in '{}' at offset {b}",
                    self.objects[obj].name
                ))
            })?;
            let Cell::Scalar(t, v) = c else {
                return Err(WalkError::unsupported(
                    "a pointer's bytes read with symbolic ones",
                ));
            };
            let len = (start + store_size(*t)).min(off + size) - b;
            let piece = slice_of(d, *t, v, b - start, len)?;
            let piece_ty = ScalarTy::Int((len * 8) as u32);
            let mut piece = if len < size {
                d.icast(CastOp::ZExt, piece_ty, whole, &piece)?
            } else {
                piece
            };
            if b > off {
                let by = d.constant(whole, (b - off) * 8);
                piece = d.ibin(IBinOp::Shl, (size * 8) as u32, &piece, &by)?;
            }
            acc = Some(match acc {
                None => piece,
                Some(a) => d.ibin(IBinOp::Or, (size * 8) as u32, &a, &piece)?,
            });
            b += len;
        }
        let x = acc.ok_or_else(|| WalkError::unsupported("an empty read"))?;
        Ok(Cell::Scalar(ty, reinterpret_int(d, size, ty, x)?))
    }

    /// Copies `len` bytes cell by cell (`llvm.memcpy`/`memmove`).
    pub fn copy<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        dst: Ptr,
        src: Ptr,
        len: u64,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        if len == 0 {
            return Ok(());
        }
        let (sobj, soff) = self.checked(src, len, "memcpy source")?;
        let (dobj, doff) = self.checked(dst, len, "memcpy destination")?;
        let end = soff + len;
        let mut moved: Vec<(u64, Cell<S>)> = Vec::new();
        for (s, c) in self.objects[sobj].cells.range(soff.saturating_sub(7), end) {
            let size = cell_size(c);
            if s + size <= soff {
                continue;
            }
            if s >= soff && s + size <= end {
                moved.push((s - soff, c.clone()));
                continue;
            }
            // A cell straddling an end of the range (`memcpy(&hi, (char *)&x + 4, 4)`, the
            // memcpy form of GET_HIGH_WORD) used to be dropped, so the copy read as
            // uninitialized: copy the bytes inside the range when the bits are known.
            let bits = match c {
                Cell::Scalar(_, v) => d.concrete_bits(v),
                Cell::Ptr(p) => Some(p.to_int()),
            };
            if let Some(bits) = bits {
                for b in s.max(soff)..(s + size).min(end) {
                    let byte = (bits >> (8 * (b - s))) & 0xff;
                    moved.push((b - soff, Cell::Scalar(ScalarTy::Int(8), d_const(d, byte))));
                }
            }
        }
        if !self.objects[dobj].writable {
            return Err(WalkError::trap("memcpy into read-only memory"));
        }
        self.clear_range(d, dobj, doff, len)?;
        for (rel, c) in moved {
            self.objects[dobj].cells.insert(doff + rel, c);
        }
        Ok(())
    }

    /// Fills `len` bytes with a concrete byte (`llvm.memset`).
    pub fn fill<D: Domain<Scalar = S>>(
        &mut self,
        d: &mut D,
        dst: Ptr,
        byte: u8,
        len: u64,
    ) -> DResult<()> {
        self.unchanged_copy_of = 0;
        if len == 0 {
            return Ok(());
        }
        let (dobj, doff) = self.checked(dst, len, "memset")?;
        self.clear_range(d, dobj, doff, len)?;
        for i in 0..len {
            let c = Cell::Scalar(ScalarTy::Int(8), d_const(d, u64::from(byte)));
            self.objects[dobj].cells.insert(doff + i, c);
        }
        Ok(())
    }

    /// Reads `count` consecutive scalars of `ty` from an object (array arguments after a call).
    pub fn read_array<D: Domain<Scalar = S>>(
        &self,
        d: &mut D,
        p: Ptr,
        ty: ScalarTy,
        count: usize,
    ) -> DResult<Vec<Cell<S>>> {
        (0..count)
            .map(|i| self.load(d, p.add(i as i64 * store_size(ty) as i64), ty))
            .collect()
    }
}

#[cold]
#[inline(never)]
fn bad_pointer(what: &str) -> WalkError {
    WalkError::trap(format!("{what} through an invalid or null pointer"))
}

#[cold]
#[inline(never)]
fn use_after_free(what: &str) -> WalkError {
    WalkError::trap(format!("{what} of heap memory after it was freed"))
}

/// The object an out-of-bounds trap's text names (the wording of `out_of_bounds`, read
/// back here so that the two stay together), or `None` for any other trap.
pub fn out_of_bounds_object(trap: &str) -> Option<&str> {
    let (_, rest) = trap.split_once(" outside '")?;
    rest.rsplit_once("' (").map(|(name, _)| name)
}

#[cold]
#[inline(never)]
fn out_of_bounds<S>(what: &str, size: u64, offset: i64, o: &Object<S>) -> WalkError {
    WalkError::trap(format!(
        "{what} of {size} bytes at offset {offset} outside '{}' ({} bytes)",
        o.name, o.size
    ))
}

/// The `size` bytes at `offset` of a scalar `v` of type `t`, as an integer of `size`
/// bytes computed by the domain (a bitcast, a logical shift, a truncation).
fn slice_of<S: Clone, D: Domain<Scalar = S>>(
    d: &mut D,
    t: ScalarTy,
    v: &S,
    offset: u64,
    size: u64,
) -> DResult<S> {
    let bits = (store_size(t) * 8) as u32;
    let whole = ScalarTy::Int(bits);
    let mut x = match t {
        ScalarTy::Float(_) => d.icast(CastOp::BitCast, t, whole, v)?,
        ScalarTy::Int(w) if w == bits => v.clone(),
        ScalarTy::Int(_) => d.icast(CastOp::ZExt, t, whole, v)?,
        ScalarTy::Ptr => return Err(WalkError::unsupported("part of a symbolic pointer")),
    };
    if offset > 0 {
        let by = d.constant(whole, offset * 8);
        x = d.ibin(IBinOp::LShr, bits, &x, &by)?;
    }
    let part = (size * 8) as u32;
    if part < bits {
        x = d.icast(CastOp::Trunc, whole, ScalarTy::Int(part), &x)?;
    }
    Ok(x)
}

/// An integer of `size` bytes read as `ty` (a float by a bitcast).
fn reinterpret_int<S: Clone, D: Domain<Scalar = S>>(
    d: &mut D,
    size: u64,
    ty: ScalarTy,
    x: S,
) -> DResult<S> {
    let int = ScalarTy::Int((size * 8) as u32);
    match ty {
        ScalarTy::Int(w) if u64::from(w) == size * 8 => Ok(x),
        ScalarTy::Int(w) => d.icast(CastOp::Trunc, int, ScalarTy::Int(w), &x),
        ScalarTy::Float(_) => d.icast(CastOp::BitCast, int, ty, &x),
        ScalarTy::Ptr => Err(WalkError::unsupported("a pointer read from symbolic bytes")),
    }
}

fn d_const<S, D: Domain<Scalar = S>>(d: &D, bits: u64) -> S {
    d.constant(ScalarTy::Int(8), bits)
}

fn reinterpret<S: Clone, D: Domain<Scalar = S>>(
    d: &mut D,
    c: &Cell<S>,
    ty: ScalarTy,
) -> DResult<Cell<S>> {
    match (c, ty) {
        (Cell::Ptr(p), ScalarTy::Ptr) => Ok(Cell::Ptr(*p)),
        (Cell::Ptr(p), ScalarTy::Int(w)) => {
            Ok(Cell::Scalar(ty, d.constant(ScalarTy::Int(w), p.to_int())))
        }
        (Cell::Scalar(ScalarTy::Int(_), v), ScalarTy::Ptr) => {
            let bits = d.concretize(v, ScalarTy::Int(64))?;
            Ok(Cell::Ptr(Ptr::from_int(bits)))
        }
        (Cell::Scalar(t, v), _) if *t == ty => Ok(Cell::Scalar(ty, v.clone())),
        (Cell::Scalar(t, v), _) => Ok(Cell::Scalar(ty, d.icast(CastOp::BitCast, *t, ty, v)?)),
        (Cell::Ptr(_), ScalarTy::Float(_)) => {
            Err(WalkError::unsupported("loading a pointer as a float"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concrete::{Concrete, FpMode};
    use fpscout_ir::FloatTy;

    /// `store`'s shortcuts (same-size overwrite, nothing near a fresh range) leave memory
    /// as clearing the range and inserting does.
    #[test]
    fn store_shortcuts_match_clearing_and_inserting() {
        let mut d = Concrete::new(FpMode::IEEE);
        let tys = [
            ScalarTy::Int(8),
            ScalarTy::Int(16),
            ScalarTy::Int(32),
            ScalarTy::Int(64),
            ScalarTy::Float(FloatTy::F64),
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for size in [48, DENSE_MAX * 2] {
            let (mut fast, mut reference): (Memory<u64>, Memory<u64>) =
                (Memory::new(), Memory::new());
            let (p, q) = (
                fast.alloc("x", size, true),
                reference.alloc("x", size, true),
            );
            for _ in 0..2_000 {
                let r = next();
                let ty = tys[(r % 5) as usize];
                let off = (r >> 8) % (48 - 8);
                let cell = Cell::Scalar(
                    ty,
                    fpscout_ir::truncate_bits(r >> 16, (store_size(ty) * 8) as u32),
                );
                fast.store(&mut d, p.add(off as i64), cell.clone())
                    .expect("store");
                let (obj, at) = (q.obj as usize, off);
                reference
                    .clear_range(&mut d, obj, at, store_size(ty))
                    .expect("clear");
                reference.objects[obj].cells.insert(at, cell);
                for ty in tys {
                    for off in 0..(48 - 8) {
                        let a = fast.load(&mut d, p.add(off), ty).map(|c| format!("{c:?}"));
                        let b = reference
                            .load(&mut d, q.add(off), ty)
                            .map(|c| format!("{c:?}"));
                        assert_eq!(a, b, "{ty} at {off}");
                    }
                }
            }
        }
    }

    /// Dense (small) and sparse (large) objects behave the same under the same operations.
    #[test]
    fn dense_and_sparse_cells_agree() {
        let mut d = Concrete::new(FpMode::IEEE);
        let mut m: Memory<u64> = Memory::new();
        let small = m.alloc("small", 64, true);
        let big = m.alloc("big", DENSE_MAX * 2, true);
        let tys = [
            ScalarTy::Int(8),
            ScalarTy::Int(16),
            ScalarTy::Int(32),
            ScalarTy::Int(64),
            ScalarTy::Float(FloatTy::F32),
            ScalarTy::Float(FloatTy::F64),
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let outcome = |r: DResult<Cell<u64>>| match r {
            Ok(Cell::Scalar(t, v)) => Ok((t, v)),
            Ok(Cell::Ptr(p)) => Ok((ScalarTy::Ptr, p.to_int())),
            Err(WalkError::Trap { .. }) => Err("trap"),
            Err(_) => Err("unsupported"),
        };
        let mut loaded = 0;
        for step in 0..20_000 {
            let r = next();
            let ty = tys[(r % 6) as usize];
            let off = ((r >> 8) % 72) as i64 - 4;
            // Out of the small object's bounds the two differ by design.
            let fits = |len: u64| off >= 0 && off as u64 + len <= 64;
            match (r >> 16) % 5 {
                0 | 1 if fits(store_size(ty)) => {
                    let bits = d.constant(ty, next());
                    let a = m.store(&mut d, small.add(off), Cell::Scalar(ty, bits));
                    let b = m.store(&mut d, big.add(off), Cell::Scalar(ty, bits));
                    assert_eq!(a.is_ok(), b.is_ok(), "store at step {step}");
                }
                2 if fits((r >> 24) % 12) => {
                    let len = (r >> 24) % 12;
                    let byte = (r >> 32) as u8;
                    let a = m.fill(&mut d, small.add(off), byte, len);
                    let b = m.fill(&mut d, big.add(off), byte, len);
                    assert_eq!(a.is_ok(), b.is_ok(), "fill at step {step}");
                }
                3 if fits((r >> 24) % 16) && (r >> 40) % 64 + (r >> 24) % 16 <= 64 => {
                    let len = (r >> 24) % 16;
                    let src = ((r >> 40) % 64) as i64;
                    let a = m.copy(&mut d, small.add(off), small.add(src), len);
                    let b = m.copy(&mut d, big.add(off), big.add(src), len);
                    assert_eq!(a.is_ok(), b.is_ok(), "copy at step {step}");
                }
                _ if fits(store_size(ty)) => {
                    let a = outcome(m.load(&mut d, small.add(off), ty));
                    let b = outcome(m.load(&mut d, big.add(off), ty));
                    assert_eq!(a, b, "load at step {step}");
                    loaded += usize::from(a.is_ok());
                }
                _ => {}
            }
        }
        assert!(loaded > 1000, "only {loaded} loads read initialised memory");
    }

    /// Resetting to an unchanged snapshot restores exactly what a full reset restores.
    #[test]
    fn incremental_reset_matches_full_reset() {
        let mut d = Concrete::new(FpMode::IEEE);
        let mut m: Memory<u64> = Memory::new();
        let g = m.alloc("g", 16, true);
        let c = m.alloc("c", 8, false);
        let i64t = ScalarTy::Int(64);
        m.store(&mut d, g, Cell::Scalar(i64t, 1)).unwrap();
        m.store_init(&mut Concrete::new(FpMode::IEEE), c, Cell::Scalar(i64t, 2))
            .unwrap();
        let pristine = m.clone();
        for round in 0..3u64 {
            m.reset_to_unchanged(&pristine);
            let mut d2 = Concrete::new(FpMode::IEEE);
            let load = |m: &Memory<u64>, d2: &mut Concrete, p: Ptr| match m.load(d2, p, i64t) {
                Ok(Cell::Scalar(_, v)) => v,
                other => panic!("{other:?}"),
            };
            assert_eq!(load(&m, &mut d2, g), 1);
            assert!(m.load(&mut d2, g.add(8), i64t).is_err());
            assert_eq!(load(&m, &mut d2, c), 2);
            let a = m.alloc_named("a", 8, true);
            m.store(&mut d, a, Cell::Scalar(i64t, round)).unwrap();
            m.store(&mut d, g, Cell::Scalar(i64t, 10 + round)).unwrap();
            m.fill(&mut d, g.add(8), 0xff, 8).unwrap();
            assert_eq!(load(&m, &mut d2, a), round);
        }
        m.reset_to_unchanged(&pristine);
        let mut d2 = Concrete::new(FpMode::IEEE);
        assert!(matches!(m.load(&mut d2, g, i64t), Ok(Cell::Scalar(_, 1))));
        assert!(m.load(&mut d2, g.add(8), i64t).is_err());
        assert_eq!(m.objects.len(), pristine.objects.len());
    }
}
