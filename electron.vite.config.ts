import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

// Main bundles three entries: the Electron shell, the plain-Node CLI (`clipdesk`) and the
// decode sandbox process. They share the engine chunks; only the shell imports electron.
export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          // The decode sandbox: a separate process for untrusted images (engine/sandbox/pool.ts).
          'decode-child': resolve('src/main/engine/sandbox/child.ts')
        }
      }
    }
  },
  preload: {
    build: {
      // Sandboxed preloads cannot load ES modules: emit CommonJS.
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: resolve('src/renderer'),
    build: {
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } }
    },
    plugins: [react()]
  }
})
