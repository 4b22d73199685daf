package dev.klat.agent.weave;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A concurrent map from objects, by identity, to values, that does not keep its keys alive: an
 * entry goes once its key is collected. Reads take no lock (a {@link ConcurrentHashMap} lookup);
 * each write first drops the entries of collected keys, so the map holds at most the live keys and
 * those collected since the last write.
 *
 * <p>Identity, not {@code equals}: some kafka-clients classes (the generated request data) compare
 * by content, and two equal requests are still two requests.
 */
final class WeakIdentityMap {

  private final ConcurrentHashMap<Object, Object> entries = new ConcurrentHashMap<Object, Object>();
  private final ReferenceQueue<Object> collected = new ReferenceQueue<Object>();

  Object get(Object key) {
    return key == null ? null : entries.get(new Probe(key));
  }

  void put(Object key, Object value) {
    if (key == null) {
      return;
    }
    expungeCollected();
    if (value == null) {
      entries.remove(new Probe(key));
    } else {
      entries.put(new WeakKey(key, collected), value);
    }
  }

  int size() {
    expungeCollected();
    return entries.size();
  }

  private void expungeCollected() {
    for (Reference<?> gone = collected.poll(); gone != null; gone = collected.poll()) {
      entries.remove(gone);
    }
  }

  /** What the map holds: the key, weakly, with the identity hash it had. */
  private static final class WeakKey extends WeakReference<Object> implements Identity {
    private final int hash;

    WeakKey(Object key, ReferenceQueue<Object> queue) {
      super(key, queue);
      this.hash = System.identityHashCode(key);
    }

    @Override
    public boolean holds(Object candidate) {
      Object key = get();
      return key != null && key == candidate;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    // A collected key equals only itself, so that expunging removes exactly its entry.
    @Override
    public boolean equals(Object other) {
      if (other == this) {
        return true;
      }
      Object key = get();
      return key != null && other instanceof Identity && ((Identity) other).holds(key);
    }
  }

  /** A lookup's key, strongly held for the lookup only. */
  private static final class Probe implements Identity {
    private final Object key;

    Probe(Object key) {
      this.key = key;
    }

    @Override
    public boolean holds(Object candidate) {
      return candidate == key;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(key);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Identity && ((Identity) other).holds(key);
    }
  }

  // Not Reference.refersTo: that is final on Java 16 and later.
  private interface Identity {
    boolean holds(Object candidate);
  }
}
