/** True only under the test dev server (vite.config.ts): the app loads its test hooks. */
declare const __CLOUD_IDE_TEST_HOOKS__: boolean;
