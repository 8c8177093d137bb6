export { EXIT } from "./exit-codes.ts";
export { decryptKeystore, encryptKeystore, KeystoreError } from "./keystore.ts";
export { main, program } from "./main.ts";
