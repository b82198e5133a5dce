package io.replaysafe.bronze;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;

/**
 * Hands out one {@link BufferRecycler} for all parsers and generators of one parser. Jackson's
 * default pool looks the recycler up in a ThreadLocal for every parser, that is once per line, and
 * profiling showed that lookup as up to a sixth of the parse time. Sharing one recycler is safe: it
 * is thread-safe, and hands each buffer to one user at a time.
 */
final class OneRecyclerPool implements RecyclerPool<BufferRecycler> {
  private static final long serialVersionUID = 1L;
  private transient BufferRecycler recycler;

  @Override
  public BufferRecycler acquirePooled() {
    if (recycler == null) {
      recycler = new BufferRecycler();
    }
    return recycler;
  }

  @Override
  public BufferRecycler acquireAndLinkPooled() {
    return acquirePooled(); // not linked: nothing is ever given back to this pool
  }

  @Override
  public void releasePooled(BufferRecycler pooled) {}
}
