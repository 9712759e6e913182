import { describe, expect, it } from 'vitest';
import { MediaCluster, MemoryNodeRegistry, NODE_TTL_MS, type MediaNode, type NodeRegistry } from './cluster';

// Routing by the registry alone (no media): which node a viewer is sent to, nodes that stop
// announcing, and a registry that cannot be read for a while (Redis restarting).
const node = (name: string, over: Partial<MediaNode> = {}): MediaNode => ({
  node: name,
  url: `http://${name}`,
  capacity: 10,
  load: 0,
  rooms: [],
  at: Date.now(),
  ...over,
});

/** A registry that fails while `down` is set. */
class Flaky implements NodeRegistry {
  down = false;
  readonly inner = new MemoryNodeRegistry();
  async put(n: MediaNode) {
    if (this.down) throw new Error('registry down');
    await this.inner.put(n);
  }
  async all() {
    if (this.down) throw new Error('registry down');
    return this.inner.all();
  }
  async remove(name: string) {
    await this.inner.remove(name);
  }
  async close() {}
}

const cluster = (registry: NodeRegistry, load = 0) =>
  new MediaCluster(
    registry,
    { node: 'me', url: 'http://me', capacity: 5, secret: 's'.repeat(32) },
    () => ({ load, rooms: [] }),
    () => undefined,
  );
const settle = () => new Promise((r) => setTimeout(r, 600));

describe('MediaCluster', () => {
  it('sends viewers to a node that has the broadcast first, then to the one with the most room', async () => {
    const registry = new MemoryNodeRegistry();
    await registry.put(node('roomy', { load: 1 }));
    await registry.put(node('has-it', { load: 8, rooms: ['v1'] }));
    await registry.put(node('full', { load: 10, rooms: ['v1'] }));
    const me = cluster(registry, 5);
    expect(me.full()).toBe(true);
    expect(await me.elsewhere('v1')).toBe('http://has-it');
    expect(await me.elsewhere('v2')).toBe('http://roomy');
  });

  it('leaves out nodes that stopped announcing', async () => {
    const registry = new MemoryNodeRegistry();
    await registry.put(node('alive'));
    await registry.put(node('dead', { at: Date.now() - NODE_TTL_MS - 1, capacity: 100 }));
    const me = cluster(registry);
    expect(await me.urlOf('dead')).toBeNull();
    expect(await me.urlOf('alive')).toBe('http://alive');
    expect(await me.elsewhere('v')).toBe('http://alive');
  });

  it('goes on routing by its last read while the registry cannot be read', async () => {
    const registry = new Flaky();
    await registry.put(node('origin'));
    const me = cluster(registry);
    expect(await me.urlOf('origin')).toBe('http://origin');
    registry.down = true;
    await settle();
    expect(await me.urlOf('origin')).toBe('http://origin');
    await settle();
    expect(await me.urlOf('origin')).toBe('http://origin');
    // Back: fresh reads again (a node gone meanwhile is gone).
    registry.down = false;
    await registry.remove('origin');
    await settle();
    expect(await me.urlOf('origin')).toBeNull();
  });
});
