/**
 * jsdom has no Clipboard API and `@jupyterlab/apputils` warns about it when
 * it loads: import this module first to give it a stub.
 */
Object.defineProperty(navigator, 'clipboard', {
  configurable: true,
  value: { writeText: async () => undefined }
});
