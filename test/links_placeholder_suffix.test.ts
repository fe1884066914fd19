/** links on an Express app: mounts of imported routers, route chains, and a route of placeholders only (`/:id`, an SPA's catch-all `*`) is not a suffix of every client path. */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { findTool } from '../src/core/tools/registry';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const EXPRESS: Record<string, string> = {
  'backend/server.js': `import express from 'express'
import productRoutes from './routes/productRoutes.js'
const app = express()
app.use('/api/products', productRoutes)
app.get('*', (req, res) => res.sendFile('index.html'))
`,
  'backend/routes/productRoutes.js': `import express from 'express'
const router = express.Router()
router.get('/top', getTopProducts)
router.get('/:id', getProductById)
router
  .route('/:id/reviews')
  .post(protect, createProductReview)
  .get(listReviews)
export default router
`,
  'backend/controllers/productController.js': `const createProductReview = asyncHandler(async (req, res) => {
  res.status(201).json({ message: 'Review added' })
})
export { createProductReview }
`,
  'frontend/src/actions.js': `import axios from 'axios'
export const listOrders = async () => { const { data } = await axios.get('/api/orders'); return data }
export const topProducts = async () => { const { data } = await axios.get('/api/products/top'); return data }
export const productDetails = async (id) => { const { data } = await axios.get(\`/api/products/\${id}\`); return data }
export const review = async (id, r) => { await axios.post(\`/api/products/\${id}/reviews\`, r) }
export const createProductReview = (id, r) => review(id, r)
`,
};

describe('links: placeholder-only routes and suffix matching', function () {
  this.timeout(120_000);
  let ws: TempWorkspace; let engine: Engine;
  before(async () => {
    ws = tempWorkspace(EXPRESS);
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await engine.index({});
  });
  after(() => { engine.close(); ws.remove(); });

  it('binds a client path by suffix only to a route with a literal segment, never to `*` or `/:id` alone', async () => {
    const out = await invokeTool(findTool('links')!, { kind: 'http', limit: 100 }, { engine });
    assert.ok(out.ok, JSON.stringify(out));
    const L = (out.data as Json).links as Json[];
    const at = (line: number) => L.filter(l => l.path === 'frontend/src/actions.js' && l.line === line);
    const dump = JSON.stringify(L.map(l => [l.path, l.line, l.key, l.matched, l.to_path, l.to_line]));
    // GET /api/products/top: the router's /top under the /api/products mount of the module server.js imports
    const [top] = at(3);
    assert.ok(top, dump);
    assert.equal(top.matched, true, dump); assert.equal(top.to_path, 'backend/routes/productRoutes.js'); assert.equal(top.to_line, 3);
    assert.match(top.evidence, /method and path/);
    // GET /api/orders: nothing in the workspace serves it; the catch-all `*` and `/:id` are not its handler
    const [orders] = at(2);
    assert.ok(orders, dump);
    assert.equal(orders.matched, false, dump); assert.equal(orders.to, 'route:GET /api/orders');
    // GET /api/products/{id}: the mounted /:id (getProductById), not the SPA's `*`
    const details = at(4);
    assert.deepEqual(details.map(l => [l.matched, l.to_path, l.to_line]), [[true, 'backend/routes/productRoutes.js', 4]], dump);
    // a route chain: POST /:id/reviews with its handler after the middleware
    const [rev] = at(5);
    assert.equal(rev?.matched, true, dump); assert.equal(rev.to_path, 'backend/routes/productRoutes.js'); assert.match(rev.evidence, /POST \/api\/products\/\{id\}\/reviews \(handler createProductReview\)/);
    // the handler is the controller's createProductReview (an asyncHandler-wrapped function), not the frontend action of the same name
    assert.match(rev.to, /backend\/controllers\/productController\.js:createProductReview$/, dump);
    const routes = L.filter(l => l.path === 'backend/routes/productRoutes.js' && !l.matched).map(l => l.key);
    assert.ok(routes.includes('GET /api/products/{id}/reviews'), dump);
  });
});
